package plan

import (
	"strings"
	"testing"
)

// Every values tree paired with its markers, anywhere in the plan, feeds the masker: policies
// read the whole document, not only what tfgate renders.
func TestReadHarvestsEveryMarkedTree(t *testing.T) {
	doc := `{"format_version":"1.2","terraform_version":"1.9.8",
	  "prior_state":{"values":{"root_module":{"resources":[{"address":"data.terraform_remote_state.x","mode":"data",
	    "values":{"backend":"local","config":{"path":"canary-prior-1"}},"sensitive_values":{"config":true}}]}}},
	  "planned_values":{"outputs":{"o":{"sensitive":true,"value":"canary-planned-output-2"}},
	    "root_module":{"resources":[{"address":"t.p","values":{"v":"canary-planned-3"},"sensitive_values":{"v":true}}]}},
	  "deferred_changes":[{"reason":"x","resource_change":{"address":"t.d","change":{"actions":["create"],
	    "after":{"v":"canary-deferred-4"},"after_sensitive":{"v":true}}}}],
	  "action_invocations":[{"address":"action.a.b","config_values":{"k":"canary-action-5"},"config_sensitive":{"k":true}}],
	  "configuration":{"root_module":{
	    "outputs":{"c":{"sensitive":true,"expression":{"constant_value":"canary-config-output-6"}},
	               "r":{"sensitive":true,"expression":{"references":["var.not_a_secret"]}}},
	    "variables":{"v":{"sensitive":true,"default":"canary-default-7"}},
	    "module_calls":{"m":{"source":"./m","expressions":{"pw":{"constant_value":"canary-module-arg-8"},"plain":{"constant_value":"shown-9"}},
	      "module":{"variables":{"pw":{"sensitive":true},"plain":{}}}}}}},
	  "resource_changes":[{"address":"terraform_data.k","mode":"managed","type":"terraform_data","name":"k",
	    "change":{"actions":["update"],"before":{"input":{"canary-key-10":"a"}},"after":{"input":{"canary-key-10":"b"}},
	      "before_sensitive":{"input":true},"after_sensitive":{"input":true},"after_unknown":{},
	      "replace_paths":[["input","canary-key-10"]]}}]}`
	c, err := Read([]byte(doc), Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := c.Masker()
	for _, canary := range []string{"canary-prior-1", "canary-planned-output-2", "canary-planned-3", "canary-deferred-4",
		"canary-action-5", "canary-config-output-6", "canary-default-7", "canary-module-arg-8", "canary-key-10"} {
		if got := m.String("x " + canary + " y"); got != "x (masked) y" {
			t.Errorf("%s not masked: %q", canary, got)
		}
	}
	for _, shown := range []string{"var.not_a_secret", "shown-9", "input", "local"} {
		if got := m.String(shown); got != shown {
			t.Errorf("%q masked, but it is no secret", shown)
		}
	}
	if all := everything(t, c); strings.Contains(all, "canary") {
		t.Errorf("a canary reached the summary: %s", all)
	}
	if got := c.Resources[0].ReplacePaths; len(got) != 1 || got[0] != "input" {
		t.Errorf("replace path through a sensitive map = %q, want [input]", got)
	}
}
