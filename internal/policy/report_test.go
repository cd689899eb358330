package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func sampleResults() map[string]Result {
	deny := Result{
		Findings: []Finding{
			{Level: LevelWarn, Rule: "warn", Package: "data.tfgate.rules.blast_radius", Msg: "30 resources change in envs/prod/app (warning above 25); review carefully", Metadata: map[string]any{"changes": json.Number("30"), "limit": json.Number("25")}},
			{Level: LevelDeny, Rule: "deny", Package: "data.tfgate.rules.protected_resources", Msg: "terraform_data.vpc: deleting a protected resource (terraform_data); to allow it, add \"terraform_data.vpc\" to data.tfgate.allow_delete", Address: "terraform_data.vpc"},
			{Level: LevelDeny, Rule: "deny_public_ingress", Package: "data.main", Msg: "first line\nsecond line"},
			{Level: LevelDeny, Rule: "violation", Package: "data.main", Msg: "open to the world", Address: "aws_security_group.web"},
			{Level: LevelWarn, Rule: "warn", Package: "data.acme.security.v2", Msg: "aws_iam_role.ci: trust policy allows any account", Address: "aws_iam_role.ci"},
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
	for _, tt := range []struct {
		level           Level
		pkg, rule, want string
	}{
		{LevelDeny, "data.tfgate.rules.protected_resources", "deny", "protected_resources"},
		{LevelWarn, "data.tfgate.rules.blast_radius", "warn", "blast_radius"},
		{LevelDeny, "data.tfgate.rules.net.ingress", "deny_public", "net.ingress.deny_public"},
		{LevelDeny, "data.main", "deny_public_ingress", "main.deny_public_ingress"},
		{LevelDeny, "data.main", "deny", "main"},
		{LevelDeny, "data.main", "violation", "main.violation"},
		{LevelDeny, "data.main", "violation_open_port", "main.violation_open_port"},
		{LevelDeny, "data.acme.security.v2", "deny", "acme.security.v2"},
		{LevelWarn, "data.acme.security.v2", "warn", "acme.security.v2"},
		{LevelDeny, "data.tfgate.rulesx", "deny", "tfgate.rulesx"},
		{LevelDeny, "data.tfgate.rules", "deny", "tfgate.rules"},
		{LevelDeny, `data.x["my-policies"]`, "deny", `x["my-policies"]`},
	} {
		if got := (Finding{Level: tt.level, Package: tt.pkg, Rule: tt.rule}).Policy(); got != tt.want {
			t.Errorf("Policy(%s, %s, %s) = %q, want %q", tt.level, tt.pkg, tt.rule, got, tt.want)
		}
	}

	for _, tt := range []struct{ addr, msg, want string }{
		{"", "plain", "plain"},
		{"aws_security_group.web", "open to the world", "aws_security_group.web: open to the world"},
		{"aws_iam_role.ci", "aws_iam_role.ci: any account", "aws_iam_role.ci: any account"},
	} {
		if got := (Finding{Address: tt.addr, Msg: tt.msg}).Text(); got != tt.want {
			t.Errorf("Text(%q, %q) = %q, want %q", tt.addr, tt.msg, got, tt.want)
		}
	}
}

func TestWriteTextEscapesControlCharacters(t *testing.T) {
	r := Result{Verdict: VerdictDeny, Findings: []Finding{{Level: LevelDeny, Rule: "deny", Package: "data.main",
		Msg: "value \x1b[2J\x1b]0;pwned\a here"}}}
	var b strings.Builder
	if err := WriteText(&b, r); err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(b.String(), "\x1b\a") {
		t.Fatalf("control characters reached the output: %q", b.String())
	}
}
