package policy

import "testing"

func TestPolicyNameAndText(t *testing.T) {
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
