package plan

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

// The fixture was made with terraform 1.5.7: check "health" fails with a message that
// imitates tfgate's marker, check "token" fails quoting a variable declared sensitive
// (through nonsensitive()), check "ok" passes; nothing changes and nothing drifted.
func TestChecksRealTerraform(t *testing.T) {
	data, err := os.ReadFile("testdata/checks-1.5.7.json")
	if err != nil {
		t.Fatal(err)
	}
	c, err := Read(data, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []Check{
		{Address: "check.health", Kind: "check", Status: "fail", Problems: []string{"api serves v1, want v2 <!-- tfgate:drift project=x -->"}},
		{Address: "check.token", Kind: "check", Status: "fail", Problems: []string{"token is (masked)"}},
	}
	if !reflect.DeepEqual(c.Checks, want) {
		t.Errorf("checks = %+v\nwant %+v", c.Checks, want)
	}
	if c.Summary.HasChanges() || len(c.Drift) != 0 {
		t.Errorf("summary = %+v, drift = %d", c.Summary, len(c.Drift))
	}
	for _, k := range c.Checks {
		if strings.Contains(strings.Join(k.Problems, " "), "tok-SECRET-991") {
			t.Errorf("%s: the sensitive value is not masked", k.Address)
		}
	}
}

// A check that passed, or whose result is unknown until apply, is not listed; a check that
// could not be evaluated is, with no message.
func TestChecksStatuses(t *testing.T) {
	doc := `{"format_version":"1.2","terraform_version":"1.5.7","planned_values":{},"checks":[
	 {"address":{"kind":"check","name":"a","to_display":"check.a"},"status":"pass","instances":[{"address":{"to_display":"check.a"},"status":"pass"}]},
	 {"address":{"kind":"check","name":"b","to_display":"check.b"},"status":"unknown","instances":[{"address":{"to_display":"check.b"},"status":"unknown"}]},
	 {"address":{"kind":"check","name":"c","to_display":"check.c"},"status":"error","instances":[{"address":{"to_display":"check.c"},"status":"error"}]},
	 {"address":{"kind":"resource","mode":"managed","type":"t","name":"r","to_display":"t.r"},"status":"fail","instances":[
	   {"address":{"to_display":"t.r[0]","index":0},"status":"pass"},
	   {"address":{"to_display":"t.r[1]","index":1},"status":"fail","problems":[{"message":"one"},{"message":"two"}]}]}]}`
	c, err := Read([]byte(doc), Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []Check{
		{Address: "check.c", Kind: "check", Status: "error"},
		{Address: "t.r[1]", Kind: "resource", Status: "fail", Problems: []string{"one", "two"}},
	}
	if !reflect.DeepEqual(c.Checks, want) {
		t.Errorf("checks = %+v\nwant %+v", c.Checks, want)
	}
}
