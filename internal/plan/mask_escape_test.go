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
		got := c.Mask(text)
		if strings.Contains(got, "Secret") {
			t.Errorf("Mask(%q) = %q: the secret survived", text, got)
		}
	}
	if got := c.Mask("unrelated text"); got != "unrelated text" {
		t.Errorf("Mask changed unrelated text: %q", got)
	}
}
