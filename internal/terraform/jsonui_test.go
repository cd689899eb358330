package terraform

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// feed runs a captured -json stdout (testdata/jsonui, see capture.sh) through a uiStream in
// chunks of n bytes, as a pipe delivers it, and returns the stderr text, the log and every
// progress reported.
func feed(t *testing.T, name string, n int) (stderr, log string, seen []Progress) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "jsonui", name+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var errBuf, logBuf strings.Builder
	s := newUIStream(&logBuf, &errBuf, func(p Progress) { seen = append(seen, p) })
	for len(raw) > 0 {
		k := min(n, len(raw))
		if _, err := s.Write(raw[:k]); err != nil {
			t.Fatal(err)
		}
		raw = raw[k:]
	}
	s.close()
	return errBuf.String(), logBuf.String(), seen
}

// blocks splits diagnostic text into its diagnostics, sorted: terraform walks resources in
// parallel, so two diagnostics on the same source may come in either order from run to run.
func blocks(s string) []string {
	parts := strings.Split(strings.TrimSpace(s), "\nError: ")
	for i := range parts {
		parts[i] = strings.TrimPrefix(strings.TrimSpace(parts[i]), "Error: ")
	}
	sort.Strings(parts)
	return parts
}

var columnRE = regexp.MustCompile(`, column \d+`)

// TestUIStreamDiagnosticsAsText checks that the JSON diagnostics of real terraform runs read
// exactly as terraform's text UI printed them on stderr — with the column added, and var
// files' lines hidden as CommandError has always hidden them.
func TestUIStreamDiagnosticsAsText(t *testing.T) {
	for _, tt := range []struct {
		name    string
		columns []string // source lines that must carry the column
	}{
		{"diag-config", []string{
			`on main.tf line 10, column 18, in resource "terraform_data" "x":`,
			`on main.tf line 13, column 20, in resource "terraform_data" "y":`,
			`on main.tf line 16, column 3, in resource "terraform_data" "z":`,
		}},
		{"diag-varfile", []string{"on secret.tfvars line 1, column 22:"}},
		{"diag-validation", []string{"on main.tf line 1, column 1:"}},
		{"diag-address", []string{`on main.tf line 6, column 23, in resource "terraform_data" "x":`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			text, err := os.ReadFile(filepath.Join("testdata", "jsonui", tt.name+".txt"))
			if err != nil {
				t.Fatal(err)
			}
			want := blocks(redactVarFileSnippets(string(text)))
			for _, n := range []int{1, 7, 4096} {
				stderr, log, _ := feed(t, tt.name, n)
				if got := blocks(columnRE.ReplaceAllString(stderr, "")); strings.Join(got, "\n--\n") != strings.Join(want, "\n--\n") {
					t.Fatalf("chunks of %d: diagnostics differ from terraform's text UI\n--- got ---\n%s\n--- want ---\n%s", n, stderr, text)
				}
				for _, c := range tt.columns {
					if !strings.Contains(stderr, c) {
						t.Errorf("stderr lacks %q:\n%s", c, stderr)
					}
				}
				for _, out := range []string{stderr, log} {
					if strings.Contains(out, "SEKRIT") || strings.Contains(out, `"snippet"`) {
						t.Errorf("a var file's line or the raw JSON got out:\n%s", out)
					}
				}
			}
		})
	}
}

// TestUIStreamOrder checks that diagnostics come out as terraform's text UI sorts them:
// by file, then position, whatever order the JSON UI printed them in.
func TestUIStreamOrder(t *testing.T) {
	stderr, _, _ := feed(t, "diag-config", 4096)
	i, j, k := strings.Index(stderr, "Invalid index"), strings.Index(stderr, "Too many function"), strings.Index(stderr, "Unsupported argument")
	if i < 0 || !(i < j && j < k) {
		t.Errorf("diagnostics out of order:\n%s", stderr)
	}
}

func TestUIStreamProgress(t *testing.T) {
	for _, tt := range []struct {
		name string
		want Progress
	}{
		{"plan-create", Progress{Planned: 4, ToApply: 4, Summary: &ChangeSummary{Add: 4, Operation: "plan"}}},
		{"plan-change", Progress{Refreshing: 4, Refreshed: 4, Planned: 2, ToApply: 3,
			Summary: &ChangeSummary{Add: 1, Remove: 2, Operation: "plan"}}},
		{"apply-create", Progress{Planned: 4, ToApply: 4, Applying: 4, Applied: 4, Summary: &ChangeSummary{Add: 4, Operation: "apply"}}},
		// A replace is applied as a delete and a create: three completions for two changes.
		{"apply-change", Progress{Planned: 2, ToApply: 3, Applying: 3, Applied: 3,
			Summary: &ChangeSummary{Add: 1, Remove: 2, Operation: "apply"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			stderr, log, seen := feed(t, tt.name, 13)
			if stderr != "" {
				t.Errorf("stderr %q from a run without errors", stderr)
			}
			if len(seen) == 0 {
				t.Fatal("no progress reported")
			}
			last := seen[len(seen)-1]
			if last.Summary == nil || *last.Summary != *tt.want.Summary {
				t.Errorf("summary %+v, want %+v", last.Summary, tt.want.Summary)
			}
			last.Summary, tt.want.Summary = nil, nil
			if last != tt.want {
				t.Errorf("progress %+v, want %+v", last, tt.want)
			}
			for i := 1; i < len(seen); i++ {
				a, b := seen[i-1], seen[i]
				if b.Refreshed < a.Refreshed || b.Planned < a.Planned || b.Applied < a.Applied {
					t.Errorf("progress went back: %+v then %+v", a, b)
				}
			}
			// The log reads like terraform's own lines, not JSON.
			if !strings.Contains(log, "Terraform 1.5.7\n") || strings.Contains(log, `"@level"`) {
				t.Errorf("log:\n%s", log)
			}
		})
	}
	// Apply announces its total before it applies anything.
	_, _, seen := feed(t, "apply-change", 4096)
	for _, p := range seen {
		if p.Applying > 0 && p.ToApply != 3 {
			t.Errorf("applying with ToApply %d, want 3 known from the start: %+v", p.ToApply, p)
		}
	}
}

// TestUIStreamText checks that what is not a UI message (a terraform without -json, a
// crash, an over-long line) still reaches the error and the log, and stops nothing.
func TestUIStreamText(t *testing.T) {
	var errBuf, logBuf strings.Builder
	var calls int
	s := newUIStream(&logBuf, &errBuf, func(Progress) { calls++ })
	long := `{"@message":"Emergency state dump","type":"log","state":"SEKRIT` + strings.Repeat("x", maxUILine) + `"}`
	s.Write([]byte("flag provided but not defined: -json\n{not json}\n" + long + "\n"))
	s.Write([]byte(`{"@message":"a: Refresh complete","type":"refresh_complete"}` + "\n"))
	s.Write([]byte(`{"@message":"Emergency state dump","type":"log","state":{"pw":"SEKRIT-small"}}` + "\n"))
	s.Write([]byte(`{"type":"diagnostic","diagnostic":{"severity":"error","summary":"no newline at the end"}}`))
	s.close()
	stderr := errBuf.String()
	for _, want := range []string{"flag provided but not defined: -json\n", "{not json}\n", "not shown: it may hold the state", "\nError: no newline at the end\n"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q", want)
		}
	}
	if strings.Contains(stderr+logBuf.String(), "SEKRIT") {
		t.Error("an over-long line (an emergency state dump) was passed on")
	}
	if calls != 1 || !strings.Contains(logBuf.String(), "a: Refresh complete\n") {
		t.Errorf("%d progress calls, log %q", calls, logBuf.String()[:min(200, logBuf.Len())])
	}
}

func TestDiagnosticText(t *testing.T) {
	ctx := "resource \"terraform_data\" \"x\""
	tests := []struct {
		name string
		d    Diagnostic
		want string
	}{
		{"summary only", Diagnostic{Severity: "error", Summary: "Failed to load plugin schemas"},
			"\nError: Failed to load plugin schemas\n\n"},
		{"address, no source", Diagnostic{Severity: "error", Summary: "Provider produced inconsistent result",
			Detail: "  indented lines are not wrapped, however long they are: " + strings.Repeat("word ", 20), Address: "terraform_data.x[0]",
			Range: &DiagnosticRange{Filename: "main.tf", Start: Pos{Line: 3}}},
			"\nError: Provider produced inconsistent result\n\n  with terraform_data.x[0],\n  on main.tf line 3:\n  (source code not available)\n\n" +
				"  indented lines are not wrapped, however long they are: " + strings.Repeat("word ", 20) + "\n"},
		{"multi-line snippet from a var file", Diagnostic{Severity: "error", Summary: "Invalid expression",
			Range: &DiagnosticRange{Filename: "vars/prod.auto.tfvars", Start: Pos{Line: 2, Column: 5}},
			Snippet: &DiagnosticSnippet{Code: "a = {\n  pw = \"SEKRIT\" +\n}", StartLine: 1,
				Values: []DiagnosticValue{{Traversal: "x", Statement: `is "SEKRIT"`}}}},
			"\nError: Invalid expression\n\n  on vars/prod.auto.tfvars line 2, column 5:\n" +
				"   1: " + hiddenVarFileLine + "\n   2: " + hiddenVarFileLine + "\n   3: " + hiddenVarFileLine + "\n" +
				"    ├────────────────\n    │ x (hidden: from a var file)\n\n"},
		{"warning, variadic call", Diagnostic{Severity: "warning", Summary: "Deprecated",
			Range: &DiagnosticRange{Filename: "main.tf", Start: Pos{Line: 1, Column: 9}},
			Snippet: &DiagnosticSnippet{Context: &ctx, Code: "x = f(1)", StartLine: 1,
				FunctionCall: &DiagnosticFunctionCall{CalledAs: "f", Signature: &DiagnosticFunction{
					VariadicParam: &DiagnosticParam{Name: "args"}}}}},
			"\nWarning: Deprecated\n\n  on main.tf line 1, column 9, in resource \"terraform_data\" \"x\":\n   1: x = f(1)\n    ├────────────────\n    │ while calling f(args...)\n\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.d.Text(); got != tt.want {
				t.Errorf("got\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}
