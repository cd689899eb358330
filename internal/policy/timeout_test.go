package policy

import (
	"context"
	"strings"
	"testing"
	"time"
)

// An expensive policy must not hold a plan (and the CI job) for long: the
// evaluation stops at EvalTimeout and fails closed.
func TestEvalTimeout(t *testing.T) {
	tests := []struct {
		name    string
		policy  string
		wantErr string
		// alsoErr is another rule's error, reported after the time limit.
		alsoErr string
	}{
		{
			name:    "expensive built-in",
			policy:  "package p\ndeny contains \"big\" if count(numbers.range(1, 3e7)) > 0\n",
			wantErr: "policy evaluation exceeded 200ms; a policy is too expensive for this plan",
		},
		{
			name: "expensive iteration",
			policy: `package p
deny contains sprintf("%d", [n]) if {
	some i in numbers.range(1, 3000)
	some j in numbers.range(1, 3000)
	n := i * j
	n < 0
}
`,
			wantErr: "policy evaluation exceeded 200ms; a policy is too expensive for this plan",
		},
		{
			// The combined query stops at the conflict in the first rule; the
			// rule-by-rule pass then runs into the expensive one, within the
			// same limit.
			name: "expensive rule in the rule-by-rule pass",
			policy: `package a
deny := x if some x in ["one", "two"]
`,
			wantErr: "policy evaluation exceeded 200ms; a policy is too expensive for this plan",
			alsoErr: "data.a.deny: policies/p.rego:2: eval_conflict_error",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{"p.rego": tt.policy}
			if strings.HasPrefix(tt.policy, "package a") {
				files["q.rego"] = "package q\nwarn contains \"big\" if count(numbers.range(1, 3e7)) > 0\n"
			}
			e, err := Load(context.Background(), Source{FS: policyFS(files), Paths: []string{"policies"}}, Options{EvalTimeout: 200 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			r := e.Eval(context.Background(), []byte(`{}`), Project{})
			if took := time.Since(start); took > time.Minute { // generous: only "it stops", not how fast (shared, noisy machines)
				t.Errorf("evaluation took %s with a 200ms limit", took)
			}
			if r.Verdict != VerdictError || !r.Denied() {
				t.Errorf("verdict %s, want error", r.Verdict)
			}
			want := tt.wantErr
			if tt.alsoErr != "" {
				want += "\n" + tt.alsoErr
			}
			// Exactly the time limit, then any other rule's error; never the
			// cancellation errors of the rules the limit stopped.
			if r.Err == nil || !(r.Err.Error() == want || tt.alsoErr != "" && strings.HasPrefix(r.Err.Error(), want)) || strings.Contains(r.Err.Error(), "cancel") {
				t.Errorf("error %v, want %q", r.Err, want)
			}
		})
	}
}

func TestEvalTimeoutDefaultAndCallerContext(t *testing.T) {
	e := mustLoad(t, map[string]string{"p.rego": "package p\ndeny contains \"big\" if count(numbers.range(1, 3e7)) > 0\n"})
	if e.timeout != DefaultEvalTimeout || DefaultEvalTimeout != 60*time.Second {
		t.Errorf("timeout %s, want the 60s default", e.timeout)
	}
	if got := formatDuration(DefaultEvalTimeout); got != "60s" {
		t.Errorf("formatDuration(60s) = %q", got)
	}

	// The caller's own deadline is reported as such, not as a slow policy.
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	r := e.Eval(ctx, []byte(`{}`), Project{})
	if r.Verdict != VerdictError || r.Err == nil || r.Err.Error() != "evaluate policies: context deadline exceeded" {
		t.Errorf("caller deadline: verdict %s err %v", r.Verdict, r.Err)
	}
}
