package policy

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	secretpkg "github.com/tfgate/tfgate/internal/secret"
)

func loadPrinting(t *testing.T, w *syncBuffer, rego string) *Engine {
	t.Helper()
	e, err := Load(context.Background(), Source{FS: policyFS(map[string]string{"p.rego": rego}), Paths: []string{"policies"}}, Options{PrintWriter: w})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// Policies read the raw plan: a print() of a resource's attributes must be
// masked with the evaluated project's own secrets before it reaches the
// writer, even when many projects with different secrets evaluate at once on
// one engine.
func TestPrintMasked(t *testing.T) {
	var out syncBuffer
	e := loadPrinting(t, &out, `package p
deny contains "x" if {
	some rc in input.resource_changes
	print(rc.change.after)
}
`)
	const workers = 12
	var wg sync.WaitGroup
	for i := range workers {
		wg.Go(func() {
			secret := fmt.Sprintf("hunter%d-secret", i)
			mask := secretpkg.NewMasker(nil).With(secret)
			plan := fmt.Sprintf(`{"resource_changes": [{"address": "db.x", "change": {"after": {"password": %q, "owner": "w%d"}}}]}`, secret, i)
			for range 10 {
				e.Eval(context.Background(), []byte(plan), Project{Name: fmt.Sprintf("p%d", i), Masker: mask})
			}
		})
	}
	wg.Wait()

	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != workers*10 {
		t.Fatalf("%d print lines, want %d:\n%s", len(lines), workers*10, out.String())
	}
	for _, l := range lines {
		if strings.Contains(l, "secret") {
			t.Fatalf("print line leaks a secret: %s", l)
		}
		var i int
		if _, err := fmt.Sscanf(l, "p%d:", &i); err != nil {
			t.Fatalf("line without project prefix: %s", l)
		}
		// Each project's own mask applied to its own line, not a neighbour's.
		want := fmt.Sprintf(`p%d: policies/p.rego:4: {"owner": "w%d", "password": "(masked)"}`, i, i)
		if l != want {
			t.Fatalf("print line\n%s\nwant\n%s", l, want)
		}
	}

	// A nil Masker prints the value as it is.
	out = syncBuffer{}
	e = loadPrinting(t, &out, "package p\ndeny contains \"x\" if print(input.v)\n")
	e.Eval(context.Background(), []byte(`{"v": "plain"}`), Project{Name: "n"})
	if want := "n: policies/p.rego:2: plain\n"; out.String() != want {
		t.Errorf("nil mask: got %q, want %q", out.String(), want)
	}
}

// When a rule fails, the engine re-evaluates rule by rule to tell which one
// failed; every print() must still appear exactly once.
func TestPrintOnceWhenARuleFails(t *testing.T) {
	tests := []struct {
		name   string
		policy string
		want   string
	}{
		{
			name: "one rule fails",
			policy: `package p
warn contains "w" if { print("warn ran") }
deny contains msg if { some rc in input.resource_changes; print("deny sees", rc.address); msg := to_number(rc.address) }
`,
			want: "policies/p.rego:2: warn ran\n" +
				"policies/p.rego:3: deny sees aws_s3_bucket.logs\n" +
				"policies/p.rego:3: deny sees terraform_data.x\n",
		},
		{
			name: "every rule passes",
			policy: `package p
warn contains "w" if { print("warn ran") }
deny contains msg if { some rc in input.resource_changes; print("deny sees", rc.address); msg := rc.address }
`,
			want: "policies/p.rego:2: warn ran\n" +
				"policies/p.rego:3: deny sees aws_s3_bucket.logs\n" +
				"policies/p.rego:3: deny sees terraform_data.x\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out syncBuffer
			e := loadPrinting(t, &out, tt.policy)
			e.Eval(context.Background(), []byte(twoChanges), Project{})
			if got := sortedLines(out.String()); got != sortedLines(tt.want) {
				t.Errorf("print output:\n%s\nwant (in any order):\n%s", out.String(), tt.want)
			}
		})
	}
}

func sortedLines(s string) string {
	lines := strings.Split(s, "\n")
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// Past maxBufferedPrints lines are written as they come, so the rule-by-rule
// pass must not write them again.
func TestPrintOnceBeyondTheBuffer(t *testing.T) {
	var out syncBuffer
	e := loadPrinting(t, &out, `package p
warn contains "w" if {
	some i in numbers.range(1, 1100)
	print(i, input.pad)
}
deny contains to_number("x") if true
`)
	pad := strings.Repeat("x", 1000) // 1100 lines of ~1 KB: over the 1 MiB buffer
	r := e.Eval(context.Background(), []byte(`{"pad": "`+pad+`"}`), Project{})
	if r.Err == nil {
		t.Fatal("want the to_number error that makes the engine evaluate rule by rule")
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	seen := map[string]int{}
	for _, l := range lines {
		seen[strings.TrimSuffix(l, " "+pad)]++
	}
	if len(lines) != 1100 || len(seen) != 1100 {
		t.Errorf("%d print lines, %d distinct; want each of the 1100 once", len(lines), len(seen))
	}
}
