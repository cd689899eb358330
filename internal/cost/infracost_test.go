package cost

import (
	"strings"
	"testing"
)

const infracostDiff = `{
  "version": "0.2",
  "currency": "USD",
  "projects": [
    {
      "name": "acme/infra/envs/prod",
      "metadata": {"path": "/repo/envs/prod", "type": "terraform_dir", "terraformWorkspace": "default"},
      "pastBreakdown": {
        "resources": [
          {"name": "aws_instance.web", "resourceType": "aws_instance", "monthlyCost": "742.64"},
          {"name": "aws_instance.old", "resourceType": "aws_instance", "monthlyCost": "30.36792"}
        ],
        "totalMonthlyCost": "773.00792"
      },
      "breakdown": {
        "resources": [
          {"name": "aws_instance.web", "resourceType": "aws_instance", "monthlyCost": "1303.28"},
          {"name": "aws_lambda_function.f", "resourceType": "aws_lambda_function", "monthlyCost": null}
        ],
        "totalMonthlyCost": "1303.28"
      },
      "diff": {"resources": [], "totalMonthlyCost": "530.27208"},
      "summary": {"unsupportedResourceCounts": {"aws_foo": 2}}
    },
    {
      "name": "staging",
      "metadata": {"path": "envs/staging"},
      "pastBreakdown": {"resources": [], "totalMonthlyCost": "0"},
      "breakdown": {"resources": [], "totalMonthlyCost": "0"}
    }
  ]
}`

func TestReadInfracost(t *testing.T) {
	ic, err := ReadInfracost("infracost.json", []byte(infracostDiff), "/repo")
	if err != nil {
		t.Fatal(err)
	}
	c, err := ic.ForProject("envs/prod", "default")
	if err != nil || c == nil {
		t.Fatalf("prod: %v, %v", c, err)
	}
	if c.Before != 77301 || c.After != 130328 || c.Delta() != 53027 || c.Currency != "USD" || c.Source != SourceInfracost {
		t.Errorf("prod cost = %+v", c)
	}
	if len(c.Priced) != 2 || c.Priced[0] != (Priced{Address: "aws_instance.web", Type: "aws_instance", Before: 74264, After: 130328}) ||
		c.Priced[1] != (Priced{Address: "aws_instance.old", Type: "aws_instance", Before: 3037}) {
		t.Errorf("priced = %+v", c.Priced)
	}
	if len(c.Unpriced) != 2 || c.Unpriced[0].Address != "aws_lambda_function.f" || c.Unpriced[1].Reason != "Infracost does not price aws_foo (2 in the project)" {
		t.Errorf("unpriced = %+v", c.Unpriced)
	}
	if c, err := ic.ForProject("envs/prod", "blue"); c != nil || err != nil {
		t.Errorf("another workspace: %v, %v", c, err)
	}
	if c, err := ic.ForProject("envs/staging", "blue"); c == nil || err != nil {
		t.Errorf("no workspace given: %v, %v", c, err)
	}
	if c, err := ic.ForProject("envs/dev", "default"); c != nil || err != nil {
		t.Errorf("not in the file: %v, %v", c, err)
	}
}

func TestReadInfracostRefuses(t *testing.T) {
	for _, tc := range []struct{ edit, want string }{
		{`"currency": "USD"`, `infracost.json: currency must be a currency code`},
		{`"totalMonthlyCost": "1303.28"`, `infracost.json: projects[0].breakdown.totalMonthlyCost: "NaN" is not a decimal amount`},
		{`"monthlyCost": "742.64"`, `infracost.json: projects[0].pastBreakdown.resources[0].monthlyCost: 99999999999999999999 is too large`},
		{`"path": "/repo/envs/prod"`, `infracost.json: projects[0].metadata.path: /elsewhere is outside the repository /repo`},
		{`"pastBreakdown": {`, `infracost.json: projects[0] (acme/infra/envs/prod) has no breakdown and pastBreakdown`},
	} {
		var bad string
		switch {
		case strings.HasPrefix(tc.want, "infracost.json: currency"):
			bad = strings.Replace(infracostDiff, tc.edit, `"currency": "$$$"`, 1)
		case strings.Contains(tc.want, "NaN"):
			bad = strings.Replace(infracostDiff, tc.edit, `"totalMonthlyCost": "NaN"`, 1)
		case strings.Contains(tc.want, "99999999999999999999"):
			bad = strings.Replace(infracostDiff, tc.edit, `"monthlyCost": "99999999999999999999"`, 1)
		case strings.Contains(tc.want, "/elsewhere"):
			bad = strings.Replace(infracostDiff, tc.edit, `"path": "/elsewhere"`, 1)
		default:
			bad = strings.Replace(infracostDiff, tc.edit, `"ignored": {`, 1)
		}
		_, err := ReadInfracost("infracost.json", []byte(bad), "/repo")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("got %v, want %q", err, tc.want)
		}
	}
	if _, err := ReadInfracost("infracost.json", []byte(`[1]`), "/repo"); err == nil || !strings.Contains(err.Error(), "not an Infracost JSON breakdown") {
		t.Errorf("an array: %v", err)
	}
}
