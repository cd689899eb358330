package plan

import (
	"strings"
	"testing"
)

func TestMaskCoversEscapedSpellings(t *testing.T) {
	p, err := Decode([]byte(`{"format_version":"1.2","resource_changes":[{"address":"terraform_data.db","mode":"managed","type":"terraform_data","name":"db",
	 "change":{"actions":["create"],"before":null,"after":{"input":{"password":"Sup3r\"Secret\\Pass\ttab"}},
	 "after_unknown":{},"before_sensitive":false,"after_sensitive":{"input":{"password":true}}}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	c := Summarise(p, Options{})
	secret := "Sup3r\"Secret\\Pass\ttab"
	for _, text := range []string{
		"raw " + secret,
		`json {"password": "Sup3r\"Secret\\Pass\ttab"}`,
	} {
		got := c.Masker().String(text)
		if strings.Contains(got, "Secret") {
			t.Errorf("Mask(%q) = %q: the secret survived", text, got)
		}
	}
	if got := c.Masker().String("unrelated text"); got != "unrelated text" {
		t.Errorf("Mask changed unrelated text: %q", got)
	}
}

// A sensitive root variable that only feeds a provider never appears in resource changes,
// but policies read it from the plan's variables block: its value must be masked too, and
// no other variable's.
func TestMaskCoversSensitiveRootVariables(t *testing.T) {
	p, err := Decode([]byte(`{"format_version":"1.2","resource_changes":[],
	 "variables":{"db_password":{"value":"hunter2-very-secret"},"region":{"value":"eu-west-1-region"}},
	 "configuration":{"root_module":{"variables":{"db_password":{"sensitive":true},"region":{}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	c := Summarise(p, Options{})
	if got := c.Masker().String("password is hunter2-very-secret"); strings.Contains(got, "hunter2") {
		t.Errorf("sensitive variable not masked: %q", got)
	}
	if got := c.Masker().String("region is eu-west-1-region"); got != "region is eu-west-1-region" {
		t.Errorf("a non-sensitive variable was masked: %q", got)
	}
}
