package plan

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/golden"
	"github.com/tfgate/tfgate/internal/plan/plangen"
	"github.com/tfgate/tfgate/internal/secret"
)

// TestSummariseHostile summarises a random hostile plan (plangen.Hostile: sensitive and
// unknown markers anywhere, nested lists and maps, keys that need quoting, replace paths,
// every action). The golden was written by Summarise before its rewrite for speed
// (issue 32): the rewrite changes nothing in the model.
func TestSummariseHostile(t *testing.T) {
	masker := secret.NewMasker([]string{"s3cr3t-value 42"}).With("hunter2-secret")
	c, err := Read(plangen.Hostile(5, 50), Options{Masker: masker, MaxValueLen: 300})
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.MarshalIndent(c, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"hunter2-secret", "s3cr3t-value", "stop-commands::pw", "line two", "ünï-secret"} {
		if strings.Contains(string(got), s) {
			t.Fatalf("the summary shows the secret %q", s)
		}
	}
	golden.Check(t, golden.Path(t.Name()), got)
}

// A key of a map marked sensitive is masked everywhere, unless it is also the name of an
// attribute (schema vocabulary every rendering shows): the harvest's attribute names,
// folded in only when there are such keys, keep "input" readable.
func TestSensitiveKeyThatIsAnAttributeName(t *testing.T) {
	plan := `{"format_version":"1.2","terraform_version":"1.9.8","resource_changes":[{"address":"terraform_data.a","mode":"managed","type":"terraform_data","name":"a",
	  "change":{"actions":["create"],"before":null,"after":{"input":"shown","labels":{"input":"x","private-key-name":"y"}},
	  "after_unknown":{},"before_sensitive":false,"after_sensitive":{"labels":true}}}]}`
	for _, read := range []bool{false, true} {
		var c *Changes
		if read {
			var err error
			if c, err = Read([]byte(plan), Options{}); err != nil {
				t.Fatal(err)
			}
		} else {
			p, err := Decode([]byte(plan))
			if err != nil {
				t.Fatal(err)
			}
			c = Summarise(p, Options{})
		}
		var paths []string
		for _, a := range c.Resources[0].Attributes {
			paths = append(paths, a.Path+"="+a.After.Text)
		}
		if got := strings.Join(paths, " "); got != `input="shown" labels=(sensitive)` {
			t.Errorf("read %v: attributes %s", read, got)
		}
		if m := c.Masker(); m.String("input") != "input" || m.String("private-key-name") == "private-key-name" {
			t.Errorf("read %v: the masker masks %q, %q", read, m.String("input"), m.String("private-key-name"))
		}
	}
}

// Values marked sensitive inside lists and maps (not as a whole) are harvested: shown
// unmarked elsewhere in the plan, they are masked.
func TestSensitivePartsHarvested(t *testing.T) {
	plan := `{"format_version":"1.2","terraform_version":"1.9.8","resource_changes":[
	  {"address":"terraform_data.a","mode":"managed","type":"terraform_data","name":"a",
	   "change":{"actions":["create"],"before":null,"after":{"l":["plain-one",{"pw":"list-secret"}],"m":{"k":{"pw":"map-secret"}}},
	   "after_unknown":{},"before_sensitive":false,"after_sensitive":{"l":[false,{"pw":true}],"m":{"k":{"pw":true}}}}},
	  {"address":"terraform_data.b","mode":"managed","type":"terraform_data","name":"b",
	   "change":{"actions":["create"],"before":null,"after":{"copy":"list-secret and map-secret"},
	   "after_unknown":{},"before_sensitive":false,"after_sensitive":{}}}]}`
	p, err := Decode([]byte(plan))
	if err != nil {
		t.Fatal(err)
	}
	c := Summarise(p, Options{})
	got := c.Resources[1].Attributes[0].After.Text
	if got != `"(masked) and (masked)"` {
		t.Errorf("copy = %s", got)
	}
	if a := c.Resources[0].Attributes[0]; a.Path != "l[0]" || a.After.Text != `"plain-one"` {
		t.Errorf("unmarked list element: %s = %s", a.Path, a.After.Text)
	}
}
