package policy

import (
	"context"
	"strings"
	"testing"
)

// TestTagsOnlyWithSomethingElse: a tags update alongside anything else the plan applies is
// not tags only — a forgotten, imported or moved resource, a changed output, an action
// invoked, a deferred change — even when the policies read only the risk facts (the
// decoder must keep what they are counted from).
func TestTagsOnlyWithSomethingElse(t *testing.T) {
	const tags = `{"address": "aws_s3_bucket.b", "mode": "managed", "type": "aws_s3_bucket",
	 "change": {"actions": ["update"], "before": {"id": "b", "tags": {"a": "1"}}, "after": {"id": "b", "tags": {"a": "2"}}, "after_unknown": {}}}`
	e := mustLoad(t, map[string]string{"p.rego": "package p\nwarn contains \"tags only\" if data.tfgate.risk.tags_only\n"})
	for name, tc := range map[string]struct {
		plan     string
		tagsOnly bool
	}{
		"tags alone":           {`{"resource_changes": [` + tags + `], "output_changes": {"x": {"actions": ["no-op"]}}}`, true},
		"tags and a read":      {`{"resource_changes": [` + tags + `, {"address": "data.x.y", "mode": "data", "type": "x", "change": {"actions": ["read"]}}]}`, true},
		"forget":               {`{"resource_changes": [` + tags + `, {"address": "aws_db_instance.d", "mode": "managed", "type": "aws_db_instance", "change": {"actions": ["forget"]}}]}`, false},
		"create then forget":   {`{"resource_changes": [` + tags + `, {"address": "x.y", "mode": "managed", "type": "x", "change": {"actions": ["create", "forget"]}}]}`, false},
		"import":               {`{"resource_changes": [` + tags + `, {"address": "x.y", "mode": "managed", "type": "x", "change": {"actions": ["no-op"], "importing": {"id": "i-1"}}}]}`, false},
		"move":                 {`{"resource_changes": [` + tags + `, {"address": "x.new", "previous_address": "x.old", "mode": "managed", "type": "x", "change": {"actions": ["no-op"]}}]}`, false},
		"output changed":       {`{"resource_changes": [` + tags + `], "output_changes": {"x": {"actions": ["update"], "before": "a", "after": "b"}}}`, false},
		"action invoked":       {`{"resource_changes": [` + tags + `], "action_invocations": [{"address": "action.aws_lambda_invoke.x", "type": "aws_lambda_invoke", "name": "x"}]}`, false},
		"deferred change":      {`{"resource_changes": [` + tags + `], "deferred_changes": [{"reason": "resource_config_unknown", "resource_change": {"address": "x.y"}}]}`, false},
		"an unheard-of action": {`{"resource_changes": [` + tags + `, {"address": "x.y", "mode": "managed", "type": "x", "change": {"actions": ["obliterate"]}}]}`, false},
	} {
		res := e.Eval(context.Background(), []byte(tc.plan), Project{Name: "p"})
		if res.Err != nil {
			t.Fatalf("%s: %v", name, res.Err)
		}
		if got := len(res.Findings) == 1 && strings.Contains(res.Findings[0].Msg, "tags only"); got != tc.tagsOnly {
			t.Errorf("%s: tags_only %t, want %t", name, got, tc.tagsOnly)
		}
	}
}
