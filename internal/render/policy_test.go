package render

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tfgate/tfgate/internal/policy"
	"github.com/tfgate/tfgate/internal/report"
)

// testPolicyReport has one project per verdict: pass, warn, deny (with no resource changes,
// so its section exists only for the findings), error, and a failed project that was never
// evaluated.
func testPolicyReport(t *testing.T) report.Run {
	warn := &policy.Result{Verdict: policy.VerdictWarn, Findings: []policy.Finding{
		{Level: policy.LevelWarn, Rule: "warn", Package: "data.tfgate.rules.blast_radius",
			Msg: "2 resources change in production (limit 1)", Metadata: map[string]any{"changes": 2, "limit": 1}},
	}}
	deny := &policy.Result{Verdict: policy.VerdictDeny, Findings: []policy.Finding{
		{Level: policy.LevelDeny, Rule: "deny", Package: "data.tfgate.rules.protected_resources",
			Address: "terraform_data.vpc", Msg: "deleting a protected resource (allow it by listing the address in data.tfgate.allow_delete)",
			Metadata: map[string]any{"type": "terraform_data", "actions": []any{"delete"}}},
		{Level: policy.LevelDeny, Rule: "deny", Package: "data.tfgate.rules.required_tags",
			Address: "aws_instance.web", Msg: "aws_instance.web: missing required tags: owner"},
		{Level: policy.LevelDeny, Rule: "deny_multiline", Package: "data.main",
			Msg: "first line\n\nthird line with \x1b[31mred\x1b[0m and a\ttab"},
		{Level: policy.LevelWarn, Rule: "warn_cost", Package: "data.main", Msg: "t3.2xlarge costs more than the budget allows"},
	}, Excepted: []string{"data.main.deny_public", "data.main.warn_size"}}
	evalErr := &policy.Result{Verdict: policy.VerdictError, Findings: []policy.Finding{
		{Level: policy.LevelWarn, Rule: "warn", Package: "data.tfgate.rules.blast_radius", Msg: "3 resources change (limit 1)"},
	}, Err: errors.Join(
		errors.New("data.main.deny_x: eval_type_error: count: operand 1 must be one of {array, object, set, string} but got number"),
		errors.New("data.main.deny_y: an object value needs a string \"msg\" key, got no msg key\n(second line of the same error)"))}
	return report.Run{
		Base: "origin/main", MergeBase: "3f2c1aa",
		Policies:    "base commit 3f2c1aa (origin/main)",
		PolicyNotes: []string{"this change edits policies/blast_radius.rego; policy changes take effect after merge"},
		Projects: []report.Project{
			{Name: "envs/dev/app", Dir: "envs/dev/app", Workspace: "default", Status: report.StatusPlanned,
				Duration: 2100 * time.Millisecond, Changes: loadChanges(t, "terraform-1.5.7"),
				Policy: &policy.Result{Verdict: policy.VerdictPass, Findings: []policy.Finding{}}},
			{Name: "envs/prod/app", Dir: "envs/prod/app", Workspace: "default", Status: report.StatusPlanned,
				Duration: 2400 * time.Millisecond, Changes: loadChanges(t, "unknown"), Policy: warn},
			{Name: "envs/prod/network", Dir: "envs/prod/network", Workspace: "default", Status: report.StatusPlanned,
				Duration: 3000 * time.Millisecond, Changes: loadChanges(t, "empty"), Policy: deny},
			{Name: "envs/staging/db", Dir: "envs/staging/db", Workspace: "default", Status: report.StatusPlanned,
				Duration: 1500 * time.Millisecond, Changes: loadChanges(t, "empty"), Policy: evalErr},
			{Name: "envs/broken", Dir: "envs/broken", Status: report.StatusFailed, Duration: 300 * time.Millisecond,
				Error: "Error: Unsupported argument"},
		},
	}
}

func TestTextPolicies(t *testing.T) {
	tests := []struct {
		name string
		opts TextOptions
	}{
		{"plain", TextOptions{}},
		{"color", TextOptions{Color: true}},
		{"narrow", TextOptions{Width: 50}},
		{"narrow-color", TextOptions{Width: 50, Color: true}},
	}
	r := testPolicyReport(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Text(&buf, r, tt.opts); err != nil {
				t.Fatal(err)
			}
			golden(t, buf.Bytes())
			// Findings wrap to the width, with or without colour codes in them.
			inFindings, n := false, 0
			for _, l := range strings.Split(buf.String(), "\n") {
				plain := stripANSI(l)
				switch {
				case strings.HasPrefix(plain, "  ✗") || strings.HasPrefix(plain, "  ⚠ warn"):
					inFindings = true
					n++
				case !strings.HasPrefix(plain, findingIndent):
					inFindings = false
				}
				if inFindings && runes(plain) > tt.opts.width() {
					t.Errorf("line wider than %d: %q", tt.opts.width(), plain)
				}
			}
			if n != 8 {
				t.Errorf("%d finding and error lines, want 8", n)
			}
		})
	}
}

func TestTextPolicyColumn(t *testing.T) {
	tests := []struct {
		name   string
		r      report.Run
		want   []string
		absent []string
	}{
		{"no policies configured: no column, no source",
			report.Run{Projects: []report.Project{{Name: "a", Status: report.StatusPlanned, Changes: loadChanges(t, "empty")}}},
			nil, []string{"policies", "Policies", "denied"}},
		{"planned but not evaluated is not a pass",
			report.Run{Policies: "working tree", Projects: []report.Project{{Name: "a", Status: report.StatusPlanned, Changes: loadChanges(t, "empty")}}},
			[]string{"\na  +0 ~0 -0  policies: not evaluated  no changes\n", "Policies: working tree"}, []string{"pass", "denied"}},
		{"error counts as denied",
			report.Run{Policies: "working tree", Projects: []report.Project{{Name: "a", Status: report.StatusPlanned, Changes: loadChanges(t, "empty"),
				Policy: &policy.Result{Verdict: policy.VerdictError, Err: errors.New("boom")}}}},
			[]string{"policies: ERROR", "  ✗ error boom\n", "Plan: 1 project, no changes. 1 denied by policy.\n"}, nil},
		{"notes without projects",
			report.Run{Base: "origin/main", Policies: "base commit 3f2c1aa (origin/main)", PolicyNotes: []string{"this change edits policies/a.rego"}},
			[]string{"Policies: base commit 3f2c1aa (origin/main)\nNote: this change edits policies/a.rego\n"}, []string{"denied"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Text(&buf, tt.r, TextOptions{}); err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(buf.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, buf.String())
				}
			}
			for _, a := range tt.absent {
				if strings.Contains(buf.String(), a) {
					t.Errorf("output has %q:\n%s", a, buf.String())
				}
			}
		})
	}
}

func TestJSONPolicies(t *testing.T) {
	var buf bytes.Buffer
	if err := JSON(&buf, testPolicyReport(t)); err != nil {
		t.Fatal(err)
	}
	golden(t, buf.Bytes())

	// The per-project object reads back as the one policy shape, JSONPolicy.
	var doc struct {
		Projects []struct {
			Policy *JSONPolicy `json:"policy"`
		} `json:"projects"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	got := doc.Projects[3].Policy
	if got == nil || got.Verdict != policy.VerdictError || got.Error == "" || len(got.Findings) != 1 {
		t.Errorf("policy result read back = %+v", got)
	}
	if doc.Projects[4].Policy != nil {
		t.Errorf("failed project has a policy result: %+v", doc.Projects[4].Policy)
	}
}
