package plan

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// rejectCases are documents that are no plan, or no plan tfgate reads.
var rejectCases = []struct {
	name, input, want string
}{
	{"empty", "", "the input is empty"},
	{"whitespace", " \n\t", "the input is empty"},
	{"binary plan file", "PK\x03\x04\x14\x00rest-of-zip", "binary plan file"},
	{"array", `[1, 2]`, "not a plan: a JSON array; expected a JSON object from `terraform show -json PLANFILE`"},
	{"string", `"plan"`, "not a plan: a JSON string; expected a JSON object"},
	{"number", "-12.5\n", "not a plan: a JSON number; expected a JSON object"},
	{"true", "true", "not a plan: a JSON boolean; expected a JSON object"},
	{"false", " false\n", "not a plan: a JSON boolean; expected a JSON object"},
	{"null", "null\n", "not a plan: a JSON null; expected a JSON object"},
	{"null after a byte order mark", "\ufeffnull", "not a plan: a JSON null"},
	{"word starting like a literal", "trueish", "not a plan: the input is not JSON"},
	{"garbage", "Terraform will perform the following actions:", "not JSON"},
	{"byte order mark only", "\ufeff", "the input is empty"},
	{"state JSON", `{"format_version":"1.0","terraform_version":"1.5.7","values":{"root_module":{}}}`, "state JSON"},
	{"plan -json log", `{"@level":"info","@message":"Terraform 1.5.7","type":"version"}` + "\n" + `{"@level":"info","@message":"Plan: 1 to add"}`, "log output"},
	{"single log line", `{"@level":"info","@message":"Terraform 1.5.7","type":"version"}`, "log message"},
	{"no format_version", `{"planned_values":{},"resource_changes":[]}`, "format_version is missing"},
	{"unrelated object", `{"format_version":"1.0","name":"x"}`, "no resource_changes, planned_values or configuration"},
	{"future format", `{"format_version":"2.0","planned_values":{}}`, `unsupported plan format_version "2.0"`},
	{"format 0.0", `{"format_version":"0.0","planned_values":{}}`, `unsupported plan format_version "0.0"`},
	{"bad format", `{"format_version":"one","planned_values":{}}`, `invalid format_version "one"`},
	{"syntax error", "{\n  \"format_version\": \"1.2\",\n  \"planned_values\": {,}\n}", "line 3, column 22"},
	{"truncated", `{"format_version":"1.2","resource_changes":[{"address":"a"`, "truncated"},
	{"trailing data", "{\"format_version\":\"1.2\",\"planned_values\":{}}\n}", "line 2, column 1: unexpected data after the plan object"},
	{"wrong type", "{\"format_version\":\"1.2\",\n\"resource_changes\":\"all of them\"}", "line 2, column 33: resource_changes is a JSON string, expected"},
	{"actions not a list", `{"format_version":"1.2","resource_changes":[{"address":"a.b","change":{"actions":"delete"}}]}`, "is a JSON string, expected"},
	{"change not an object", `{"format_version":"1.2","resource_changes":[{"address":"a.b","change":["delete"]}]}`, "is a JSON array, expected"},
	{"address a number", `{"format_version":"1.2","resource_drift":[{"address":12}]}`, "is a JSON number, expected"},
	{"output changes a list", `{"format_version":"1.2","output_changes":[{"actions":["create"]}]}`, "is a JSON array, expected"},
	{"sensitive not a boolean", `{"format_version":"1.2","configuration":{"root_module":{"variables":{"pw":{"sensitive":"yes"}}}}}`, "is a JSON string, expected"},
	{"errored not a boolean", `{"format_version":"1.2","planned_values":{},"errored":"no"}`, "is a JSON string, expected"},
}

func TestDecodeRejects(t *testing.T) {
	tests := rejectCases
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Decode([]byte(tt.input))
			if err == nil {
				t.Fatalf("Decode succeeded: %+v", p)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
			if p != nil {
				t.Errorf("plan returned with error %v", err)
			}
		})
	}
}

func TestDecodeReadsOnlyWhatTfgateUses(t *testing.T) {
	const input = `{
	  "format_version": "1.2", "terraform_version": "1.9.8", "complete": false,
	  "variables": {"pw": {"value": "variable-secret"}},
	  "planned_values": {"outputs": {"o": {"sensitive": true, "value": "planned-secret"}}, "root_module": {"resources": [{"address": "a.b"}]}},
	  "prior_state": {"values": {"outputs": {"p": {"sensitive": false, "value": 12345678901234567890}}, "root_module": {"resources": [{"address": "a.b"}]}}},
	  "configuration": {"root_module": {"variables": {"pw": {"default": "config-secret", "sensitive": true}}}},
	  "resource_changes": [{"address": "a.b", "mode": "managed", "type": "a", "name": "b",
	    "change": {"actions": ["update"], "before": {"n": 12345678901234567890}, "after": {"n": 1.50}}}],
	  "resource_drift": [{"address": "a.c", "change": {"actions": ["update"]}}],
	  "output_changes": {"o": {"actions": ["create"], "after": "x"}},
	  "relevant_attributes": [{"resource": "a.b", "attribute": ["n"]}]
	}`
	p, err := Decode([]byte(input))
	if err != nil {
		t.Fatal(err)
	}
	if p.FormatVersion != "1.2" || p.TerraformVersion != "1.9.8" || p.Complete == nil || *p.Complete {
		t.Errorf("header fields: %q %q %v", p.FormatVersion, p.TerraformVersion, p.Complete)
	}
	if len(p.ResourceChanges) != 1 || len(p.ResourceDrift) != 1 || len(p.OutputChanges) != 1 || len(p.RelevantAttributes) != 1 {
		t.Errorf("changes not decoded: %d %d %d %d", len(p.ResourceChanges), len(p.ResourceDrift), len(p.OutputChanges), len(p.RelevantAttributes))
	}
	before := p.ResourceChanges[0].Change.Before.(map[string]any)["n"]
	if n, ok := before.(json.Number); !ok || n.String() != "12345678901234567890" {
		t.Errorf("big number not kept verbatim: %#v", before)
	}
	// Only sensitive root variables are kept — their values are masked wherever they
	// appear — and the configuration is never decoded.
	if p.Config != nil {
		t.Error("configuration decoded")
	}
	if len(p.Variables) != 1 || p.Variables["pw"] == nil {
		t.Errorf("variables kept: %v, want only the sensitive pw", p.Variables)
	}
	if o := p.PlannedValues.Outputs["o"]; o == nil || !o.Sensitive || o.Value != nil {
		t.Errorf("planned output: %+v", o)
	}
	if p.PlannedValues.RootModule != nil || p.PriorState.Values.RootModule != nil {
		t.Error("planned_values/prior_state resources decoded")
	}
	if o := p.PriorState.Values.Outputs["p"]; o == nil || o.Value == nil {
		t.Errorf("prior output: %+v", o)
	}
	for _, secret := range []string{"config-secret"} {
		b, _ := json.Marshal(p)
		if strings.Contains(string(b), secret) {
			t.Errorf("decoded plan holds %q", secret)
		}
	}
}

func TestDecodeErrored(t *testing.T) {
	p, err := Decode([]byte(`{"format_version":"1.2","errored":true,"resource_changes":[{"address":"a.b","change":{"actions":["create"]}}]}`))
	if !errors.Is(err, ErrErrored) {
		t.Fatalf("err = %v, want ErrErrored", err)
	}
	if p == nil || len(p.ResourceChanges) != 1 {
		t.Fatalf("errored plan not returned: %+v", p)
	}
}

func TestDecodeAcceptsFormats(t *testing.T) {
	for _, v := range []string{"0.1", "0.2", "1.0", "1.2", "1.99"} {
		if _, err := Decode([]byte(`{"format_version":"` + v + `","planned_values":{}}`)); err != nil {
			t.Errorf("format %s: %v", v, err)
		}
	}
}

// A byte order mark (Windows editors add one) is skipped, not "invalid character 'ï'".
func TestDecodeSkipsByteOrderMark(t *testing.T) {
	p, err := Decode([]byte("\ufeff{\"format_version\":\"1.2\",\"resource_changes\":[{\"address\":\"a.b\",\"change\":{\"actions\":[\"create\"]}}]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.ResourceChanges) != 1 || p.ResourceChanges[0].Address != "a.b" {
		t.Errorf("decoded %+v", p.ResourceChanges)
	}
}
