package pipeline

import (
	"encoding/json"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
)

func TestStateHolds(t *testing.T) {
	plan := func(changes string) *tfjson.Plan {
		var p tfjson.Plan
		if err := json.Unmarshal([]byte(`{"format_version":"1.2","resource_changes":`+changes+`}`), &p); err != nil {
			t.Fatal(err)
		}
		return &p
	}
	state := func(resources string) *tfjson.State {
		var s tfjson.State
		if err := json.Unmarshal([]byte(`{"format_version":"1.0","values":{"root_module":{"resources":`+resources+`,
			"child_modules":[{"address":"module.m","resources":[{"address":"module.m.terraform_data.y","mode":"managed","type":"terraform_data","name":"y","values":{"input":"m"}}]}]}}}`), &s); err != nil {
			t.Fatal(err)
		}
		return &s
	}
	create := `[{"address":"terraform_data.x","mode":"managed","type":"terraform_data","name":"x",
		"change":{"actions":["create"],"before":null,"after":{"input":"v2","triggers_replace":null,"nested":{"a":1}},"after_unknown":{"id":true,"output":true,"nested":{"b":true}}}}]`
	for _, c := range []struct {
		name        string
		plan, state string
		holds       bool
	}{
		{"created with the planned values", create, `[{"address":"terraform_data.x","mode":"managed","values":{"id":"1","input":"v2","output":"v2","triggers_replace":null,"nested":{"a":2,"b":3}}}]`, true},
		{"another value since", create, `[{"address":"terraform_data.x","mode":"managed","values":{"id":"1","input":"v9","triggers_replace":null}}]`, false},
		{"not there", create, `[]`, false},
		{"an attribute missing", create, `[{"address":"terraform_data.x","mode":"managed","values":{"id":"1"}}]`, false},
		{"deleted and gone", `[{"address":"terraform_data.z","mode":"managed","change":{"actions":["delete"],"before":{},"after":null}}]`, `[]`, true},
		{"deleted but there", `[{"address":"terraform_data.z","mode":"managed","change":{"actions":["delete"],"before":{},"after":null}}]`,
			`[{"address":"terraform_data.z","mode":"managed","values":{}}]`, false},
		{"in a module", `[{"address":"module.m.terraform_data.y","mode":"managed","change":{"actions":["update"],"before":{"input":"l"},"after":{"input":"m"},"after_unknown":{}}}]`, `[]`, true},
		{"a deposed object is not checked", `[{"address":"terraform_data.x","mode":"managed","deposed":"abcd","change":{"actions":["delete"],"before":{},"after":null}}]`, `[]`, false},
		{"no-op and reads pass", `[{"address":"terraform_data.n","mode":"managed","change":{"actions":["no-op"],"before":{},"after":{}}},{"address":"data.x.y","mode":"data","change":{"actions":["read"],"before":null,"after":{}}}]`, `[]`, true},
	} {
		if got := stateHolds(plan(c.plan), state(c.state)); got != c.holds {
			t.Errorf("%s: stateHolds = %v, want %v", c.name, got, c.holds)
		}
	}
}
