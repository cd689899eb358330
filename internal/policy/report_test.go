package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

func sampleResults() map[string]Result {
	deny := Result{
		Findings: []Finding{
			{Level: LevelWarn, Rule: "warn", Package: "data.tfgate.rules.blast_radius", Msg: "30 resources change in envs/prod/app (warning above 25); review carefully", Metadata: map[string]any{"changes": json.Number("30"), "limit": json.Number("25")}},
			{Level: LevelDeny, Rule: "deny", Package: "data.tfgate.rules.protected_resources", Msg: "terraform_data.vpc: deleting a protected resource (terraform_data); to allow it, add \"terraform_data.vpc\" to data.tfgate.allow_delete", Address: "terraform_data.vpc"},
			{Level: LevelDeny, Rule: "deny_public_ingress", Package: "data.main", Msg: "first line\nsecond line"},
		},
	}
	deny.finish()
	warn := Result{Findings: []Finding{
		{Level: LevelWarn, Rule: "warn", Package: "data.a", Msg: "one"},
		{Level: LevelWarn, Rule: "warn", Package: "data.a", Msg: "two"},
	}, Excepted: []string{"data.a.deny_x"}}
	warn.finish()
	pass := Result{}
	pass.finish()
	failed := Result{
		Findings: []Finding{{Level: LevelWarn, Rule: "warn", Package: "data.ok", Msg: "kept"}},
		Err:      errors.New("data.p.deny: policies/p.rego:2: eval_conflict_error: complete rules must not produce multiple outputs\ndata.q.deny: second error"),
	}
	failed.finish()
	return map[string]Result{"deny": deny, "warn": warn, "pass": pass, "error": failed}
}

func TestWriteText(t *testing.T) {
	for name, r := range sampleResults() {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteText(&b, r); err != nil {
				t.Fatal(err)
			}
			golden(t, "TestWriteText_"+name, b.Bytes())
		})
	}
}

func TestWriteJSON(t *testing.T) {
	for name, r := range sampleResults() {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteJSON(&b, r); err != nil {
				t.Fatal(err)
			}
			golden(t, "TestWriteJSON_"+name, b.Bytes())

			var back Result
			if err := json.Unmarshal(b.Bytes(), &back); err != nil {
				t.Fatal(err)
			}
			if back.Verdict != r.Verdict || back.Denied() != r.Denied() || len(back.Findings) != len(r.Findings) || !reflect.DeepEqual(back.Excepted, r.Excepted) {
				t.Errorf("round trip: got %+v, want %+v", back, r)
			}
			if (back.Err == nil) != (r.Err == nil) || (r.Err != nil && back.Err.Error() != r.Err.Error()) {
				t.Errorf("round trip error: got %v, want %v", back.Err, r.Err)
			}
		})
	}
}

func TestSummaryAndPolicyName(t *testing.T) {
	r := sampleResults()
	for name, want := range map[string]string{"deny": "DENIED", "warn": "2 warnings", "pass": "pass", "error": "ERROR"} {
		if got := r[name].Summary(); got != want {
			t.Errorf("%s: Summary() = %q, want %q", name, got, want)
		}
	}
	for _, tt := range []struct{ pkg, rule, want string }{
		{"data.tfgate.rules.protected_resources", "deny", "protected_resources"},
		{"data.main", "deny_public_ingress", "main.deny_public_ingress"},
		{"data.main", "violation", "main"},
	} {
		if got := (Finding{Package: tt.pkg, Rule: tt.rule}).Policy(); got != tt.want {
			t.Errorf("Policy(%s, %s) = %q, want %q", tt.pkg, tt.rule, got, tt.want)
		}
	}
}
