package plan

import (
	"encoding/json"
	"strings"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
)

// decodePlan decodes a plan given as JSON text, failing the test on error.
func decodePlan(t *testing.T, js string) *tfjson.Plan {
	t.Helper()
	p, err := Decode([]byte(js))
	if err != nil {
		t.Fatalf("decode: %v\n%s", err, js)
	}
	return p
}

// planWith wraps resource_changes entries (JSON objects) in a plan.
func planWith(t *testing.T, changes ...string) *tfjson.Plan {
	return decodePlan(t, `{"format_version":"1.2","terraform_version":"1.9.8","resource_changes":[`+strings.Join(changes, ",")+`]}`)
}

func TestSummaryCountsEveryActionKind(t *testing.T) {
	const obj = `{"id":"x"}`
	rc := func(extra, actions, before, after string) string {
		return `{"address":"t.r","mode":"managed","type":"t","name":"r"` + extra + `,"change":{"actions":` + actions +
			`,"before":` + before + `,"after":` + after + `,"before_sensitive":{},"after_sensitive":{}}}`
	}
	tests := []struct {
		name       string
		change     string
		want       Summary
		wantAction Action // "" = not listed
	}{
		{"create", rc("", `["create"]`, "null", obj), Summary{Add: 1}, ActionCreate},
		{"update", rc("", `["update"]`, obj, `{"id":"y"}`), Summary{Change: 1}, ActionUpdate},
		{"delete", rc("", `["delete"]`, obj, "null"), Summary{Destroy: 1}, ActionDelete},
		{"replace delete first", rc("", `["delete","create"]`, obj, obj), Summary{Replace: 1}, ActionReplace},
		{"replace create first", rc("", `["create","delete"]`, obj, obj), Summary{Replace: 1}, ActionReplace},
		{"read", rc(`,"mode":"data"`, `["read"]`, "null", obj), Summary{Read: 1}, ActionRead},
		{"forget", rc("", `["forget"]`, obj, "null"), Summary{Forget: 1}, ActionForget},
		{"create then forget", rc("", `["create","forget"]`, obj, obj), Summary{Add: 1}, ActionCreate},
		{"no-op", rc("", `["no-op"]`, obj, obj), Summary{}, ""},
		{"no-op, previous_address equal", rc(`,"previous_address":"t.r"`, `["no-op"]`, obj, obj), Summary{}, ""},
		{"move", rc(`,"previous_address":"t.old"`, `["no-op"]`, obj, obj), Summary{Move: 1}, ActionNoop},
		{"move and update", rc(`,"previous_address":"t.old"`, `["update"]`, obj, `{"id":"y"}`), Summary{Change: 1, Move: 1}, ActionUpdate},
		{"import", strings.Replace(rc("", `["no-op"]`, obj, obj), `"actions"`, `"importing":{"id":"x"},"actions"`, 1), Summary{Import: 1}, ActionNoop},
		{"import and update", strings.Replace(rc("", `["update"]`, obj, `{"id":"y"}`), `"actions"`, `"importing":{"id":"x"},"actions"`, 1), Summary{Change: 1, Import: 1}, ActionUpdate},
		{"deposed delete", rc(`,"deposed":"abcd"`, `["delete"]`, obj, "null"), Summary{Destroy: 1}, ActionDelete},
		{"unknown future action", rc("", `["teleport"]`, obj, obj), Summary{Change: 1}, "teleport"},
		{"no actions", rc("", `[]`, obj, obj), Summary{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Summarise(planWith(t, tt.change), Options{})
			if c.Summary != tt.want {
				t.Errorf("summary = %+v, want %+v", c.Summary, tt.want)
			}
			if tt.wantAction == "" {
				if len(c.Resources) != 0 {
					t.Errorf("listed %+v, want nothing", c.Resources)
				}
				return
			}
			if len(c.Resources) != 1 || c.Resources[0].Action != tt.wantAction {
				t.Fatalf("resources = %+v, want one %s", c.Resources, tt.wantAction)
			}
		})
	}
}

func TestSummaryHasChanges(t *testing.T) {
	tests := []struct {
		s    Summary
		want bool
	}{
		{Summary{}, false},
		{Summary{Drift: 3}, false}, // drift alone changes nothing on apply
		{Summary{Outputs: 1}, true},
		{Summary{Add: 1}, true}, {Summary{Change: 1}, true}, {Summary{Destroy: 1}, true},
		{Summary{Replace: 1}, true}, {Summary{Import: 1}, true}, {Summary{Move: 1}, true},
		{Summary{Read: 1}, true}, {Summary{Forget: 1}, true},
	}
	for _, tt := range tests {
		if got := tt.s.HasChanges(); got != tt.want {
			t.Errorf("%+v.HasChanges() = %v, want %v", tt.s, got, tt.want)
		}
	}
	if got := (Summary{Add: 1, Drift: 2}).Plus(Summary{Add: 2, Outputs: 1}); got != (Summary{Add: 3, Outputs: 1, Drift: 2}) {
		t.Errorf("Plus = %+v", got)
	}
}

func TestSummariseResourceDetails(t *testing.T) {
	p := planWith(t,
		`{"address":"t.a","mode":"managed","type":"t","name":"a","action_reason":"replace_because_tainted",
		  "change":{"actions":["create","delete"],"before":{"id":"1"},"after":{},"after_unknown":{"id":true},"before_sensitive":{},"after_sensitive":{}}}`,
		`{"address":"t.b","mode":"managed","type":"t","name":"b","action_reason":"something_new_in_terraform_2",
		  "change":{"actions":["delete"],"before":{"id":"1"},"after":null,"before_sensitive":{},"after_sensitive":false}}`,
		`{"address":"t.c","previous_address":"t.old","mode":"managed","type":"t","name":"c",
		  "change":{"actions":["no-op"],"importing":{"id":"imp-1"},"before":{},"after":{},"before_sensitive":{},"after_sensitive":{}}}`,
		`{"address":"t.d","mode":"managed","type":"t","name":"d","deposed":"00aa",
		  "change":{"actions":["delete"],"before":{"id":"1"},"after":null,"before_sensitive":{},"after_sensitive":false}}`,
	)
	c := Summarise(p, Options{})
	if len(c.Resources) != 4 {
		t.Fatalf("resources: %+v", c.Resources)
	}
	a, b, cc, d := c.Resources[0], c.Resources[1], c.Resources[2], c.Resources[3]
	if a.Reason != "tainted" || !a.CreateBeforeDestroy || len(a.Attributes) != 1 {
		t.Errorf("replace: %+v", a)
	}
	if b.Reason != "something new in terraform 2" || b.Attributes != nil {
		t.Errorf("delete: %+v", b)
	}
	if cc.PreviousAddress != "t.old" || !cc.Importing || cc.ImportID != "imp-1" {
		t.Errorf("move+import: %+v", cc)
	}
	if d.Deposed != "00aa" {
		t.Errorf("deposed: %+v", d)
	}
}

func TestSummariseOutputs(t *testing.T) {
	p := decodePlan(t, `{"format_version":"1.2","resource_changes":[],
	  "output_changes":{
	    "same":{"actions":["no-op"],"before":"x","after":"x","before_sensitive":false,"after_sensitive":false},
	    "new":{"actions":["create"],"before":null,"after":"v","after_unknown":false,"before_sensitive":false,"after_sensitive":false},
	    "unknown":{"actions":["create"],"before":null,"after_unknown":true,"before_sensitive":false,"after_sensitive":false},
	    "gone":{"actions":["delete"],"before":"b","after":null,"before_sensitive":false,"after_sensitive":false},
	    "secret":{"actions":["update"],"before":"s1-value","after":"s2-value","before_sensitive":true,"after_sensitive":true},
	    "newsecret":{"actions":["create"],"before":null,"after":"s3-value","before_sensitive":false,"after_sensitive":true}
	  }}`)
	c := Summarise(p, Options{})
	want := []Output{
		{"gone", ActionDelete, Value{`"b"`, KindKnown}, valueNull},
		{"new", ActionCreate, valueNull, Value{`"v"`, KindKnown}},
		{"newsecret", ActionCreate, valueNull, valueSensitive},
		{"secret", ActionUpdate, valueSensitive, valueSensitive},
		{"unknown", ActionCreate, valueNull, valueUnknown},
	}
	if len(c.Outputs) != len(want) {
		t.Fatalf("outputs = %+v", c.Outputs)
	}
	for i := range want {
		if c.Outputs[i] != want[i] {
			t.Errorf("output %d = %+v, want %+v", i, c.Outputs[i], want[i])
		}
	}
	if c.Summary.Outputs != 5 || !c.Summary.HasChanges() {
		t.Errorf("summary = %+v", c.Summary)
	}
}

// Terraform 0.12/0.13 give outputs no sensitivity markers and call every output "create".
func TestSummariseLegacyOutputs(t *testing.T) {
	p := decodePlan(t, `{"format_version":"0.1","terraform_version":"0.12.31","resource_changes":[],
	  "planned_values":{"outputs":{"pw":{"sensitive":true},"plain":{"sensitive":false},"same":{"sensitive":false}}},
	  "prior_state":{"values":{"outputs":{"same":{"sensitive":false,"value":{"n":42}},"old":{"sensitive":true,"value":"old-secret"}}}},
	  "output_changes":{
	    "pw":{"actions":["create"],"before":null,"after":"legacy-secret"},
	    "plain":{"actions":["create"],"before":null,"after":"shown"},
	    "same":{"actions":["create"],"before":null,"after":{"n":42}},
	    "old":{"actions":["delete"],"before":"old-secret","after":null},
	    "unheard":{"actions":["create"],"before":null,"after":"nobody-said"}
	  }}`)
	c := Summarise(p, Options{})
	got := map[string]Output{}
	for _, o := range c.Outputs {
		got[o.Name] = o
	}
	if _, ok := got["same"]; ok {
		t.Error("unchanged legacy output listed")
	}
	if got["pw"].After != valueSensitive || got["old"].Before != valueSensitive || got["unheard"].After != valueHidden {
		t.Errorf("legacy sensitive outputs shown: %+v", c.Outputs)
	}
	if got["plain"].After.Text != `"shown"` {
		t.Errorf("plain output: %+v", got["plain"])
	}
}

func TestSummariseWarnings(t *testing.T) {
	p := decodePlan(t, `{"format_version":"0.1","terraform_version":"0.12.31","complete":false,
	  "resource_changes":[{"address":"t.a","change":{"actions":["update"],"before":{"v":"old-val"},"after":{"v":"new-val"}}}],
	  "deferred_changes":[{"reason":"provider_config_unknown","resource_change":{"address":"t.b"}}]}`)
	c := Summarise(p, Options{})
	joined := strings.Join(c.Warnings, "\n")
	for _, want := range []string{"1 resource change carries no sensitivity markers", "1 resource change is deferred", "the plan is incomplete"} {
		if !strings.Contains(joined, want) {
			t.Errorf("warnings %q lack %q", joined, want)
		}
	}
	attrs := c.Resources[0].Attributes
	if len(attrs) != 1 || attrs[0].Before != valueHidden || attrs[0].After != valueHidden || attrs[0].Before.Text != "(hidden)" {
		t.Errorf("unmarked values not hidden: %+v", attrs)
	}
}

func TestSummariseNil(t *testing.T) {
	c := Summarise(nil, Options{})
	if c == nil || c.Summary.HasChanges() || len(c.Resources) != 0 {
		t.Errorf("Summarise(nil) = %+v", c)
	}
	// Nil entries (hand-written JSON) are skipped, not dereferenced.
	p := &tfjson.Plan{ResourceChanges: []*tfjson.ResourceChange{nil, {Address: "x"}}, OutputChanges: map[string]*tfjson.Change{"o": nil}}
	if c := Summarise(p, Options{}); len(c.Resources) != 0 || len(c.Outputs) != 0 {
		t.Errorf("nil entries: %+v", c)
	}
}

func TestSummaryJSON(t *testing.T) {
	s := Summary{Add: 1, Replace: 2, Drift: 3}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"add":1,"change":0,"destroy":0,"replace":2,"import":0,"move":0,"read":0,"forget":0,"outputs":0,"actions":0,"drift":3,"has_changes":true}`
	if string(b) != want {
		t.Fatalf("json = %s\nwant   %s", b, want)
	}
	var back Summary
	if err := json.Unmarshal(b, &back); err != nil || back != s {
		t.Fatalf("round trip = %+v, %v", back, err)
	}
}
