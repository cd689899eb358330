package cost

import (
	"encoding/json"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/open-policy-agent/opa/v1/ast"
)

const exampleCatalogue = `{"tfgate": {"prices": {
  "currency": "USD",
  "note": "example prices, not real ones",
  "resources": [
    {"type": "terraform_data", "match": {"input.instance_type": "m5.large"}, "monthly": 70},
    {"type": "terraform_data", "match": {"input.instance_type": "m5.4xlarge"}, "monthly": "560.64"},
    {"type": "terraform_data", "match": {"input.tier": "free"}, "monthly": 0},
    {"type": "aws_iam_*", "monthly": 0},
    {"type": "aws_instance", "match": {"instance_type": "t3.micro", "ebs_optimized": true}, "monthly": 7.59}
  ]
}}}`

func TestLoadCatalogue(t *testing.T) {
	fsys := fstest.MapFS{
		"policies/prices.json":           {Data: []byte(exampleCatalogue)},
		"policies/settings.yaml":         {Data: []byte("tfgate:\n  required_tags: [owner]\n")},
		"policies/x.rego":                {Data: []byte("package x")},
		"policies/testdata/prices.json":  {Data: []byte(`{"tfgate": {"prices": {"currency": "EUR", "resources": []}}}`)},
		"policies/.hidden/prices.json":   {Data: []byte(`{"tfgate": {"prices": 5}}`)},
		"policies/tfgate/other.yaml":     {Data: []byte("limits: 5\n")},
		"elsewhere/prices.json":          {Data: []byte(`{"tfgate": {"prices": 5}}`)},
		"nested/tfgate/prices/data.yaml": {Data: []byte("currency: EUR\nresources:\n  - {type: x, monthly: 1}\n")},
	}
	c, err := LoadCatalogue(fsys, []string{"policies"}, "base commit 3f2c1aa")
	if err != nil {
		t.Fatal(err)
	}
	if c.File != "policies/prices.json" || c.Where != "base commit 3f2c1aa" || c.Currency != "USD" || len(c.Entries) != 5 || c.Entries[1].Monthly != 56064 {
		t.Fatalf("catalogue = %+v", c)
	}
	// A data file in a directory is merged there: nested/tfgate/prices/ is data.tfgate.prices.
	c, err = LoadCatalogue(fsys, []string{"nested"}, "")
	if err != nil || c == nil || c.Currency != "EUR" || c.File != "nested/tfgate/prices/data.yaml" {
		t.Fatalf("nested = %+v, %v", c, err)
	}
	if c, err := LoadCatalogue(fsys, []string{"policies/tfgate"}, ""); c != nil || err != nil {
		t.Fatalf("no catalogue = %+v, %v", c, err)
	}
	if _, err := LoadCatalogue(fsys, []string{"policies", "nested"}, ""); err == nil || !strings.Contains(err.Error(), "both policies/prices.json and nested/tfgate/prices/data.yaml define data.tfgate.prices") {
		t.Fatalf("two catalogues: %v", err)
	}
}

func TestCatalogueRefusesHostileValues(t *testing.T) {
	for _, tc := range []struct{ prices, want string }{
		{`5`, `p.json:1: tfgate.prices must be an object`},
		{`{"resources": []}`, `p.json:1: tfgate.prices has no "currency"`},
		{`{"currency": "dollars", "resources": []}`, `tfgate.prices.currency must be a currency code such as "USD", got "dollars"`},
		{`{"currency": "USD", "resources": {}}`, `tfgate.prices.resources must be a list`},
		{`{"currency": "USD", "resources": [], "prices": 1}`, `"prices" is not a catalogue key`},
		{`{"currency": "USD", "resources": [{"type": "x", "monthly": "NaN"}]}`, `tfgate.prices.resources[0].monthly must be a price to the cent: "NaN" is not a decimal amount`},
		{`{"currency": "USD", "resources": [{"type": "x", "monthly": -5}]}`, `tfgate.prices.resources[0].monthly is negative`},
		{`{"currency": "USD", "resources": [{"type": "x", "monthly": 1e300}]}`, `resources[0].monthly must be a price to the cent: "1e300" is not a decimal amount`},
		{`{"currency": "USD", "resources": [{"type": "x", "monthly": 123456789012345678901234567890}]}`, `resources[0].monthly must be a price to the cent: 123456789012345678901234567890 is too large`},
		{`{"currency": "USD", "resources": [{"type": "x", "monthly": 0.001}]}`, `digits below the cent`},
		{`{"currency": "USD", "resources": [{"type": "x", "monthly": null}]}`, `resources[0].monthly must be a number, got no value`},
		{`{"currency": "USD", "resources": [{"type": "x", "monthly": [1]}]}`, `must be a number, got a list`},
		{`{"currency": "USD", "resources": [{"type": "x"}]}`, `resources[0] needs a "type" and a "monthly" price`},
		{`{"currency": "USD", "resources": [{"type": 5, "monthly": 1}]}`, `resources[0].type must be a resource type, got "5"`},
		{`{"currency": "USD", "resources": [{"type": "[", "monthly": 1}]}`, `resources[0].type: "[" is not a valid pattern`},
		{`{"currency": "USD", "resources": [{"type": "x", "monthly": 1, "price": 2}]}`, `"price" is not an entry key`},
		{`{"currency": "USD", "resources": [{"type": "x", "monthly": 1, "match": {"a": {"b": 1}}}]}`, `resources[0].match["a"] must be a string, number or boolean, got an object`},
		{`{"currency": "USD", "resources": [{"type": "x", "monthly": 1, "match": {"a..b": 1}}]}`, `match["a..b"]: the attribute path must be names joined by dots`},
	} {
		fsys := fstest.MapFS{"p.json": {Data: []byte(`{"tfgate": {"prices": ` + tc.prices + `}}`)}}
		_, err := LoadCatalogue(fsys, []string{"p.json"}, "")
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "p.json:1: ") {
			t.Errorf("%s: got %v, want %q", tc.prices, err, tc.want)
		}
	}
}

func TestPrice(t *testing.T) {
	c, err := LoadCatalogue(fstest.MapFS{"prices.json": {Data: []byte(exampleCatalogue)}}, []string{"."}, "")
	if err != nil {
		t.Fatal(err)
	}
	planJSON := `{"resource_changes": [
	  {"address": "terraform_data.grow", "mode": "managed", "type": "terraform_data",
	   "change": {"actions": ["update"], "before": {"input": {"instance_type": "m5.large"}}, "after": {"input": {"instance_type": "m5.4xlarge"}}}},
	  {"address": "terraform_data.new", "mode": "managed", "type": "terraform_data",
	   "change": {"actions": ["create"], "before": null, "after": {"input": {"instance_type": "m5.large"}}}},
	  {"address": "terraform_data.gone", "mode": "managed", "type": "terraform_data",
	   "change": {"actions": ["delete"], "before": {"input": {"instance_type": "m5.large"}}, "after": null}},
	  {"address": "terraform_data.same", "mode": "managed", "type": "terraform_data",
	   "change": {"actions": ["no-op"], "before": {"input": {"tier": "free"}}, "after": {"input": {"tier": "free"}}}},
	  {"address": "terraform_data.replaced", "mode": "managed", "type": "terraform_data",
	   "change": {"actions": ["delete", "create"], "before": {"input": {"instance_type": "m5.large"}}, "after": {"input": {"instance_type": "m5.large"}}}},
	  {"address": "terraform_data.odd", "mode": "managed", "type": "terraform_data",
	   "change": {"actions": ["update"], "before": {"input": {"instance_type": "m5.large"}}, "after": {"input": {"instance_type": "x1.32xlarge"}}}},
	  {"address": "terraform_data.later", "mode": "managed", "type": "terraform_data",
	   "change": {"actions": ["create"], "before": null, "after": {}, "after_unknown": {"input": true}}},
	  {"address": "aws_iam_role.r", "mode": "managed", "type": "aws_iam_role",
	   "change": {"actions": ["create"], "before": null, "after": {"name": "r"}}},
	  {"address": "aws_instance.web", "mode": "managed", "type": "aws_instance",
	   "change": {"actions": ["create"], "before": null, "after": {"instance_type": "t3.micro", "ebs_optimized": true}}},
	  {"address": "aws_s3_bucket.b", "mode": "managed", "type": "aws_s3_bucket",
	   "change": {"actions": ["create"], "before": null, "after": {"bucket": "b"}}},
	  {"address": "data.aws_ami.x", "mode": "data", "type": "aws_ami",
	   "change": {"actions": ["read"], "before": null, "after": {}}}
	]}`
	got, err := c.Price([]byte(planJSON))
	if err != nil {
		t.Fatal(err)
	}
	// before: grow 70 + gone 70 + replaced 70; after: grow 560.64 + new 70 + replaced 70 + web 7.59
	if got.Before != 21000 || got.After != 70823 || got.Delta() != 49823 {
		t.Errorf("before %v after %v delta %v", got.Before, got.After, got.Delta())
	}
	var unpriced []string
	for _, u := range got.Unpriced {
		unpriced = append(unpriced, u.Address+": "+u.Reason)
	}
	want := []string{
		`terraform_data.odd: no catalogue entry for terraform_data matches input.instance_type = "x1.32xlarge"`,
		`terraform_data.later: input.instance_type is known only after apply`,
		`aws_s3_bucket.b: the price catalogue has no entry for aws_s3_bucket`,
	}
	if strings.Join(unpriced, "\n") != strings.Join(want, "\n") {
		t.Errorf("unpriced:\n%s\nwant:\n%s", strings.Join(unpriced, "\n"), strings.Join(want, "\n"))
	}
	if len(got.Priced) != 7 {
		t.Errorf("priced = %+v", got.Priced)
	}
	// What policies read: exact decimals, no float.
	in := Input(ast.NewObject([2]*ast.Term{ast.StringTerm("resource_changes"), ast.ArrayTerm()}), got)
	v, _ := ast.JSON(in)
	b, _ := json.Marshal(v.(map[string]any)["cost"].(map[string]any)["monthly_delta"])
	if string(b) != "498.23" {
		t.Errorf("input.cost.monthly_delta = %s", b)
	}
	if in.(ast.Object).Get(ast.StringTerm("resource_changes")) == nil {
		t.Error("the plan's members are kept")
	}
}
