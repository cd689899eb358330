package policy

import (
	"context"
	"reflect"
	"strings"
	"testing"
)

const riskPlan = `{"resource_changes": [
	{"address": "aws_db_instance.main", "mode": "managed", "type": "aws_db_instance",
	 "change": {"actions": ["delete"], "before": {"id": "db"}, "after": null}},
	{"address": "aws_s3_bucket.b", "mode": "managed", "type": "aws_s3_bucket",
	 "change": {"actions": ["update"], "before": {"id": "b", "tags": {"a": "1"}}, "after": {"id": "b", "tags": {"a": "2"}}, "after_unknown": {}}},
	{"address": "data.aws_caller_identity.x", "mode": "data", "type": "aws_caller_identity", "change": {"actions": ["read"]}}
]}`

const tagsPlan = `{"resource_changes": [
	{"address": "aws_s3_bucket.b", "mode": "managed", "type": "aws_s3_bucket",
	 "change": {"actions": ["update"], "before": {"id": "b", "tags": {"a": "1"}, "tags_all": {"a": "1"}},
	            "after": {"id": "b", "tags": {"a": "2"}, "tags_all": {"a": "2"}}, "after_unknown": {"tags_all": {}}}},
	{"address": "aws_s3_bucket.c", "mode": "managed", "type": "aws_s3_bucket", "change": {"actions": ["no-op"]}}
]}`

func TestApprovalRules(t *testing.T) {
	tests := []struct {
		name    string
		policy  string
		plan    string
		want    *Approval
		wantErr string
	}{
		{"none defined for this plan", `approval := {"required": 3} if data.tfgate.project.name == "other"`, riskPlan, nil, ""},
		{"document", `approval := {"required": 2, "teams": ["@acme/platform"], "reasons": ["prod", sprintf("destroys %d", [data.tfgate.risk.destroys])]} if data.tfgate.risk.destroys > 0`,
			riskPlan, &Approval{Required: 2, Teams: []string{"acme/platform"}, Reasons: []string{"prod", "destroys 1"}, Rules: []string{"data.p.approval"}}, ""},
		{"largest wins, teams united, lower only when all say so",
			"approval contains {\"required\": 1, \"lower\": true, \"reasons\": [\"a\"]}\n" +
				"approval contains {\"required\": 2, \"teams\": [\"acme/finops\"], \"reasons\": [\"b\"]}\n" +
				"package q\napproval := {\"required\": 0, \"teams\": [\"ACME/finops\", \"alice\"], \"lower\": true, \"reasons\": [\"a\"]}\n" +
				"approval_helper := {\"required\": \"not a rule\"}",
			riskPlan, &Approval{Required: 2, Teams: []string{"acme/finops", "alice"}, Reasons: []string{"a", "b"}, Rules: []string{"data.p.approval", "data.q.approval"}}, ""},
		{"lowered when every object says so", `approval contains {"required": 1, "lower": true, "reasons": ["tags only"]} if data.tfgate.risk.tags_only`,
			tagsPlan, &Approval{Required: 1, Lower: true, Reasons: []string{"tags only"}, Rules: []string{"data.p.approval"}}, ""},
		{"not tags only", `approval contains {"required": 1, "lower": true} if data.tfgate.risk.tags_only`, riskPlan, nil, ""},
		{"negative count", `approval := {"required": -1}`, riskPlan, nil, `data.p.approval: approval "required" must be a whole number from 0 to 100, got -1`},
		{"fractional count", `approval := {"required": 1.5}`, riskPlan, nil, `must be a whole number from 0 to 100, got 1.5`},
		{"string count", `approval := {"required": "2"}`, riskPlan, nil, `approval "required" must be a whole number, got the string "2"`},
		{"missing count", `approval := {"teams": ["a/b"]}`, riskPlan, nil, `approval "required" must be a whole number, got null (or missing)`},
		{"misspelt key", `approval := {"required": 1, "lowered": true}`, riskPlan, nil, `approval key "lowered" is not one of required, teams, reasons, lower`},
		{"bad team", `approval := {"required": 1, "teams": ["not a team"]}`, riskPlan, nil, `approval team "not a team" is neither a login nor "org/team"`},
		{"teams not a list", `approval := {"required": 1, "teams": "acme/x"}`, riskPlan, nil, `approval "teams" must be a list of strings, got the string "acme/x"`},
		{"a string", `approval := "two"`, riskPlan, nil, `an approval must be an object`},
		{"one good, one failing: no decision", "approval := {\"required\": 1, \"lower\": true}\npackage q\napproval := {\"required\": 1, \"lower\": \"yes\"}", riskPlan, nil,
			`data.q.approval: approval "lower" must be a boolean`},
		{"run-time error", `approval := {"required": to_number("x")}`, riskPlan, nil, `data.p.approval: `},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{}
			p, q, two := strings.Cut(tt.policy, "package q\n") // a second package, in its own file
			files["p.rego"] = "package p\n" + p + "\n"
			if two {
				files["q.rego"] = "package q\n" + q + "\n"
			}
			e := mustLoad(t, files)
			res := e.Eval(context.Background(), []byte(tt.plan), Project{Name: "prod"})
			if tt.wantErr != "" {
				if res.Err == nil || !strings.Contains(res.Err.Error(), tt.wantErr) || res.Verdict != VerdictError || res.Approval != nil {
					t.Fatalf("got %v (%s, approval %+v), want an error with %q", res.Err, res.Verdict, res.Approval, tt.wantErr)
				}
				return
			}
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			if !reflect.DeepEqual(res.Approval, tt.want) {
				t.Errorf("approval %+v, want %+v", res.Approval, tt.want)
			}
		})
	}
}

func TestRiskAndAuthor(t *testing.T) {
	e := mustLoad(t, map[string]string{"p.rego": `package p
warn contains sprintf("%s %v", [data.tfgate.author, data.tfgate.risk])
`})
	for _, tc := range []struct{ plan, want string }{
		{riskPlan, `alice {"creates": 0, "deletes": 1, "destroys": 1, "replaces": 0, "resource_types": ["aws_db_instance", "aws_s3_bucket"], "tags_only": false, "updates": 1}`},
		{tagsPlan, `alice {"creates": 0, "deletes": 0, "destroys": 0, "replaces": 0, "resource_types": ["aws_s3_bucket"], "tags_only": true, "updates": 1}`},
		{`{"resource_changes": [{"mode": "managed", "type": "x", "change": {"actions": ["update"], "before": {"id": "1", "tags": {}}, "after": {"id": "1", "tags": {}, "size": 2}}}]}`,
			`alice {"creates": 0, "deletes": 0, "destroys": 0, "replaces": 0, "resource_types": ["x"], "tags_only": false, "updates": 1}`},
		{`{"resource_changes": [{"mode": "managed", "type": "x", "change": {"actions": ["update"], "before": {"id": "1", "tags": {}}, "after": {"id": null, "tags": {}}, "after_unknown": {"id": true}}}]}`,
			`alice {"creates": 0, "deletes": 0, "destroys": 0, "replaces": 0, "resource_types": ["x"], "tags_only": false, "updates": 1}`},
		{`{"resource_changes": [{"mode": "managed", "type": "x", "change": {"actions": ["create", "delete"]}}]}`,
			`alice {"creates": 0, "deletes": 0, "destroys": 1, "replaces": 1, "resource_types": ["x"], "tags_only": false, "updates": 0}`},
		{`{}`, `alice {"creates": 0, "deletes": 0, "destroys": 0, "replaces": 0, "resource_types": [], "tags_only": false, "updates": 0}`},
	} {
		res := e.Eval(context.Background(), []byte(tc.plan), Project{Name: "p", Author: "alice"})
		if res.Err != nil || len(res.Findings) != 1 || res.Findings[0].Msg != tc.want {
			t.Errorf("plan %s:\n got %v %+v\nwant %s", tc.plan, res.Err, res.Findings, tc.want)
		}
	}
}

// TestRiskKeepsResourceChanges: the risk facts are counted from resource_changes, which the
// decoder must keep even when no policy reads them itself.
func TestRiskKeepsResourceChanges(t *testing.T) {
	for name, policy := range map[string]string{
		"approval rule": `approval := {"required": 1}`,
		"reads risk":    `deny contains "destroys" if data.tfgate.risk.destroys > 0`,
	} {
		e := mustLoad(t, map[string]string{"p.rego": "package p\n" + policy + "\n"})
		if !e.Reads("resource_changes") || e.Reads("prior_state") {
			t.Errorf("%s: reads resource_changes %t, prior_state %t", name, e.Reads("resource_changes"), e.Reads("prior_state"))
		}
	}
	e := mustLoad(t, map[string]string{"p.rego": "package p\ndeny contains \"x\" if input.format_version == \"0\"\n"})
	if e.Reads("resource_changes") {
		t.Error("a policy reading neither risk nor resource changes keeps resource_changes")
	}
}

// TestApprovalOnlyPolicies: approval rules alone are policies.
func TestApprovalOnlyPolicies(t *testing.T) {
	e := mustLoad(t, map[string]string{"p.rego": "package p\napproval := {\"required\": 2}\n"})
	res := e.Eval(context.Background(), []byte(riskPlan), Project{})
	if res.Err != nil || res.Verdict != VerdictPass || res.Approval == nil || res.Approval.Required != 2 {
		t.Fatalf("got %+v", res)
	}
}
