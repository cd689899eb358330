package pipeline

import (
	"encoding/json"
	"strings"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"

	"github.com/tfgate/tfgate/internal/gate"
)

// appliedCase is a saved plan's resource and output changes, and the state terraform holds
// now, in terraform's JSON; applied is whether the plan is already applied.
type appliedCase struct {
	name                   string
	changes, outputChanges string
	resources, outputs     string
	applied                bool
	why                    string // in the reason it is not, when it is not
}

func TestAlreadyApplied(t *testing.T) {
	create := `[{"address":"terraform_data.x","mode":"managed","type":"terraform_data","name":"x",
		"change":{"actions":["create"],"before":null,"after":{"input":"v2","triggers_replace":null,"nested":{"a":1}},"after_unknown":{"id":true,"output":true,"nested":{"b":true}}}}]`
	x := func(input string) string {
		return `[{"address":"terraform_data.x","mode":"managed","values":{"id":"1","input":"` + input + `","output":"v2","triggers_replace":null,"nested":{"a":1,"b":3}}}]`
	}
	del := `[{"address":"terraform_data.z","mode":"managed","change":{"actions":["delete"],"before":{},"after":null}}]`
	for _, c := range append(append(resourceCases(create, x, del), outputCases(create, x)...), importMoveCases()...) {
		t.Run(c.name, func(t *testing.T) {
			f := gate.PlanInState{Continues: true, Serial: 2, PriorSerial: 1, Changes: compareChanges(savedPlan(t, c.changes, c.outputChanges), stateNow(t, c.resources, c.outputs))}
			already, why := gate.AlreadyApplied(f)
			if (already != "") != c.applied || !c.applied && !strings.Contains(why, c.why) {
				t.Errorf("already applied: %q (why not: %q); want applied %v, why not containing %q", already, why, c.applied, c.why)
			}
			if strings.Contains(why, "secret") {
				t.Errorf("the reason shows a sensitive value: %s", why)
			}
		})
	}
}

// resourceCases: the plan's resource changes, as before outputs, imports and moves counted.
func resourceCases(create string, x func(string) string, del string) []appliedCase {
	return []appliedCase{
		{name: "created with the planned values", changes: create, resources: x("v2"), applied: true},
		{name: "another value since", changes: create, resources: x("v9"), why: "does not hold terraform_data.x"},
		{name: "not there", changes: create, resources: `[]`, why: "does not hold terraform_data.x"},
		{name: "an attribute missing", changes: create, resources: `[{"address":"terraform_data.x","mode":"managed","values":{"id":"1"}}]`, why: "terraform_data.x"},
		{name: "deleted and gone", changes: del, resources: `[]`, applied: true},
		{name: "deleted but there", changes: del, resources: `[{"address":"terraform_data.z","mode":"managed","values":{}}]`, why: "terraform_data.z"},
		{name: "in a module", changes: `[{"address":"module.m.terraform_data.y","mode":"managed","change":{"actions":["update"],"before":{"input":"l"},"after":{"input":"m"},"after_unknown":{}}}]`,
			resources: `[]`, applied: true},
		{name: "a deposed object is not checked", changes: `[{"address":"terraform_data.x","mode":"managed","deposed":"abcd","change":{"actions":["delete"],"before":{},"after":null}}]`,
			resources: `[]`, why: "cannot check terraform_data.x"},
		{name: "no-ops and reads show nothing", changes: `[{"address":"terraform_data.n","mode":"managed","change":{"actions":["no-op"],"before":{},"after":{}}},{"address":"data.x.y","mode":"data","change":{"actions":["read"],"before":null,"after":{}}}]`,
			resources: `[]`, why: "changes nothing the state could show"},
		{name: "nothing at all", changes: `[]`, resources: `[]`, why: "changes nothing the state could show"},
		{name: "an update of values unknown when planned shows nothing", changes: `[{"address":"terraform_data.x","mode":"managed","change":{"actions":["update"],"before":{"id":"1","input":"a"},"after":{"id":"1"},"after_unknown":{"input":true}}}]`,
			resources: `[{"address":"terraform_data.x","mode":"managed","values":{"id":"1","input":"a"}}]`, why: "shows none of its changes made — terraform_data.x"},
		{name: "a replacement shown by its new id", changes: `[{"address":"terraform_data.x","mode":"managed","change":{"actions":["delete","create"],"before":{"id":"1","input":"a"},"after":{"input":"a"},"after_unknown":{"id":true}}}]`,
			resources: `[{"address":"terraform_data.x","mode":"managed","values":{"id":"2","input":"a"}}]`, applied: true},
		{name: "a replacement not made", changes: `[{"address":"terraform_data.x","mode":"managed","change":{"actions":["delete","create"],"before":{"id":"1","input":"a"},"after":{"input":"a"},"after_unknown":{"id":true}}}]`,
			resources: `[{"address":"terraform_data.x","mode":"managed","values":{"id":"1","input":"a"}}]`, why: "shows none of its changes made"},
	}
}

// outputCases: root outputs, sensitive or not, alone and with resources.
func outputCases(create string, x func(string) string) []appliedCase {
	update := `{"o":{"actions":["update"],"before":"v1","after":"v2","after_unknown":false}}`
	secret := `{"s":{"actions":["update"],"before":"secret1","after":"secret2","after_unknown":false,"before_sensitive":true,"after_sensitive":true}}`
	return []appliedCase{
		{name: "output only, as planned", changes: `[]`, outputChanges: update, outputs: `{"o":{"value":"v2"}}`, applied: true},
		{name: "output only, never made", changes: `[]`, outputChanges: update, outputs: `{"o":{"value":"v1"}}`, why: "does not hold output o"},
		{name: "output only, changed since", changes: `[]`, outputChanges: update, outputs: `{"o":{"value":"v3"}}`, why: "does not hold output o"},
		{name: "output only, gone", changes: `[]`, outputChanges: update, outputs: `{}`, why: "does not hold output o"},
		{name: "output only, unknown when planned", changes: `[]`, outputChanges: `{"t":{"actions":["create"],"before":null,"after_unknown":true}}`,
			outputs: `{"t":{"value":"2026-01-01T00:00:00Z"}}`, why: "shows none of its changes made — output t"},
		{name: "output deleted and gone", changes: `[]`, outputChanges: `{"o":{"actions":["delete"],"before":"v1","after":null,"after_unknown":false}}`, outputs: `{}`, applied: true},
		{name: "output deleted but there", changes: `[]`, outputChanges: `{"o":{"actions":["delete"],"before":"v1","after":null,"after_unknown":false}}`,
			outputs: `{"o":{"value":"v1"}}`, why: "output o"},
		{name: "sensitive output as planned", changes: `[]`, outputChanges: secret, outputs: `{"s":{"sensitive":true,"value":"secret2"}}`, applied: true},
		{name: "sensitive output never made", changes: `[]`, outputChanges: secret, outputs: `{"s":{"sensitive":true,"value":"secret1"}}`, why: "does not hold output s"},
		{name: "an output no-op shows nothing", changes: `[]`, outputChanges: `{"o":{"actions":["no-op"],"before":"v1","after":"v1","after_unknown":false}}`,
			outputs: `{"o":{"value":"v1"}}`, why: "changes nothing"},
		{name: "resource as planned, output not", changes: create, outputChanges: update, resources: x("v2"), outputs: `{"o":{"value":"v9"}}`, why: "does not hold output o"},
		{name: "resource and output as planned", changes: create, outputChanges: update, resources: x("v2"), outputs: `{"o":{"value":"v2"}}`, applied: true},
	}
}

// importMoveCases: imports, moves and forgets, which change no object.
func importMoveCases() []appliedCase {
	imp := `[{"address":"terraform_data.c","mode":"managed","change":{"actions":["no-op"],"before":{"id":"7"},"after":{"id":"7"},"after_unknown":{},"importing":{"id":"7"}}}]`
	moved := `[{"address":"terraform_data.b","previous_address":"terraform_data.a","mode":"managed","change":{"actions":["no-op"],"before":{"id":"7"},"after":{"id":"7"},"after_unknown":{}}}]`
	forget := `[{"address":"terraform_data.f","mode":"managed","change":{"actions":["forget"],"before":{"id":"7"},"after":null}}]`
	obj := func(addr string) string { return `{"address":"` + addr + `","mode":"managed","values":{"id":"7"}}` }
	return []appliedCase{
		{name: "import only, imported", changes: imp, resources: "[" + obj("terraform_data.c") + "]", applied: true},
		{name: "import only, not in state", changes: imp, resources: `[]`, why: "does not hold terraform_data.c"},
		{name: "import only, other values since", changes: imp, resources: `[{"address":"terraform_data.c","mode":"managed","values":{"id":"8"}}]`, why: "terraform_data.c"},
		{name: "moved only, moved", changes: moved, resources: "[" + obj("terraform_data.b") + "]", applied: true},
		{name: "moved only, still at the old address", changes: moved, resources: "[" + obj("terraform_data.a") + "]", why: "does not hold terraform_data.b"},
		{name: "moved only, at both addresses", changes: moved, resources: "[" + obj("terraform_data.a") + "," + obj("terraform_data.b") + "]", why: "terraform_data.b"},
		{name: "moved only, at neither", changes: moved, resources: `[]`, why: "terraform_data.b"},
		{name: "forgotten and gone", changes: forget, resources: `[]`, applied: true},
		{name: "forgotten but there", changes: forget, resources: "[" + obj("terraform_data.f") + "]", why: "terraform_data.f"},
	}
}

func savedPlan(t *testing.T, changes, outputs string) *tfjson.Plan {
	t.Helper()
	if outputs == "" {
		outputs = "{}"
	}
	var p tfjson.Plan
	if err := json.Unmarshal([]byte(`{"format_version":"1.2","resource_changes":`+changes+`,"output_changes":`+outputs+`}`), &p); err != nil {
		t.Fatal(err)
	}
	return &p
}

func stateNow(t *testing.T, resources, outputs string) *tfjson.State {
	t.Helper()
	if resources == "" {
		resources = "[]"
	}
	if outputs == "" {
		outputs = "{}"
	}
	var s tfjson.State
	if err := json.Unmarshal([]byte(`{"format_version":"1.0","values":{"outputs":`+outputs+`,"root_module":{"resources":`+resources+`,
		"child_modules":[{"address":"module.m","resources":[{"address":"module.m.terraform_data.y","mode":"managed","type":"terraform_data","name":"y","values":{"input":"m"}}]}]}}}`), &s); err != nil {
		t.Fatal(err)
	}
	return &s
}
