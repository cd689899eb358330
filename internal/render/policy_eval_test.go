package render

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/policy"
)

// sampleResults are results as the engine returns them: sorted, denies first, with the
// verdict derived.
func sampleResults() map[string]policy.Result {
	deny := policy.Result{
		Verdict: policy.VerdictDeny,
		Findings: []policy.Finding{
			{Level: policy.LevelDeny, Rule: "deny_public_ingress", Package: "data.main", Msg: "first line\nsecond line"},
			{Level: policy.LevelDeny, Rule: "violation", Package: "data.main", Msg: "open to the world", Address: "aws_security_group.web"},
			{Level: policy.LevelDeny, Rule: "deny", Package: "data.tfgate.rules.protected_resources", Msg: "terraform_data.vpc: deleting a protected resource (terraform_data); to allow it, add \"terraform_data.vpc\" to data.tfgate.allow_delete", Address: "terraform_data.vpc"},
			{Level: policy.LevelWarn, Rule: "warn", Package: "data.acme.security.v2", Msg: "aws_iam_role.ci: trust policy allows any account", Address: "aws_iam_role.ci"},
			{Level: policy.LevelWarn, Rule: "warn", Package: "data.tfgate.rules.blast_radius", Msg: "30 resources change in envs/prod/app (warning above 25); review carefully", Metadata: map[string]any{"changes": json.Number("30"), "limit": json.Number("25")}},
		},
	}
	warn := policy.Result{Verdict: policy.VerdictWarn, Findings: []policy.Finding{
		{Level: policy.LevelWarn, Rule: "warn", Package: "data.a", Msg: "one"},
		{Level: policy.LevelWarn, Rule: "warn", Package: "data.a", Msg: "two"},
	}, Excepted: []string{"data.a.deny_x"}}
	pass := policy.Result{Verdict: policy.VerdictPass, Findings: []policy.Finding{}}
	failed := policy.Result{
		Verdict:  policy.VerdictError,
		Findings: []policy.Finding{{Level: policy.LevelWarn, Rule: "warn", Package: "data.ok", Msg: "kept"}},
		Err: errors.Join(errors.New("data.p.deny: policies/p.rego:2: eval_conflict_error: complete rules must not produce multiple outputs"),
			errors.New("data.q.deny: second error")),
	}
	return map[string]policy.Result{"deny": deny, "warn": warn, "pass": pass, "error": failed}
}

func TestPolicyText(t *testing.T) {
	for name, r := range sampleResults() {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			if err := PolicyText(&b, r, TextOptions{}); err != nil {
				t.Fatal(err)
			}
			golden(t, b.Bytes())
		})
	}
}

func TestPolicyJSON(t *testing.T) {
	for name, r := range sampleResults() {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			if err := PolicyJSON(&b, r); err != nil {
				t.Fatal(err)
			}
			golden(t, b.Bytes())
			var back JSONPolicy
			if err := json.Unmarshal(b.Bytes(), &back); err != nil {
				t.Fatal(err)
			}
			if back.Verdict != r.Verdict || back.Denied != r.Denied() || len(back.Findings) != len(r.Findings) {
				t.Errorf("round trip: got %+v, want %+v", back, r)
			}
		})
	}
}

func TestPolicySummary(t *testing.T) {
	r := sampleResults()
	for name, want := range map[string]string{"deny": "DENIED", "warn": "2 warnings", "pass": "pass", "error": "ERROR"} {
		if got := policySummary(r[name]); got != want {
			t.Errorf("%s: policySummary = %q, want %q", name, got, want)
		}
	}
}

func TestPolicyTextEscapesControlCharacters(t *testing.T) {
	r := policy.Result{Verdict: policy.VerdictDeny, Findings: []policy.Finding{{Level: policy.LevelDeny, Rule: "deny", Package: "data.main",
		Msg: "value \x1b[2J\x1b]0;pwned\a here"}}}
	var b strings.Builder
	if err := PolicyText(&b, r, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(b.String(), "\x1b\a") {
		t.Fatalf("control characters reached the output: %q", b.String())
	}
}
