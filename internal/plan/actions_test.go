package plan

import (
	"strings"
	"testing"
)

// A plan that only invokes an action (Terraform 1.14) changes no resource, but applying it
// runs provider code: it must not read as "no changes".
func TestActionInvocationsAreChanges(t *testing.T) {
	p, err := Decode([]byte(`{"format_version":"1.2","terraform_version":"1.14.0","complete":true,
	 "action_invocations":[{"address":"action.bufo_print.success","type":"bufo_print","name":"success",
	  "config_values":{"name":"bufo"},"config_sensitive":{},"config_unknown":{},
	  "provider_name":"registry.terraform.io/austinvalle/bufo","invoke_action_trigger":{}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	c := Summarise(p, Options{})
	if c.Summary.Actions != 1 || !c.Summary.HasChanges() {
		t.Fatalf("summary = %+v, HasChanges %v; want 1 action and changes", c.Summary, c.Summary.HasChanges())
	}
	if len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0], "action.bufo_print.success") {
		t.Fatalf("warnings = %q", c.Warnings)
	}
	if got := c.Summary.Plus(c.Summary).Actions; got != 2 {
		t.Fatalf("Plus lost actions: %d", got)
	}
}
