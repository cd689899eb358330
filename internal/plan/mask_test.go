package plan

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/secret"
)

// everything returns all text of a Changes value, for "does X appear anywhere" checks.
func everything(t *testing.T, c *Changes) string {
	t.Helper()
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(c); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestMasks(t *testing.T) {
	p := decodePlan(t, `{"format_version":"1.2","resource_changes":[
	  {"address":"t.r[\"tok-CI-SECRET-1\"]","previous_address":"t.r[\"old-CI-SECRET-1\"]","mode":"managed","type":"t","name":"r",
	   "change":{"actions":["update"],"importing":{"id":"id-CI-SECRET-1"},
	     "before":{"url":"https://user:CI-SECRET-1@host","n":987654321,"m":{"CI-SECRET-1":"k"}},
	     "after":{"url":"https://user:CI-SECRET-2@host","n":987654322,"m":{"CI-SECRET-1":"v"}},
	     "after_unknown":{},"before_sensitive":{},"after_sensitive":{}}}],
	  "output_changes":{"o-CI-SECRET-1":{"actions":["update"],"before":"CI-SECRET-1","after":"x","before_sensitive":false,"after_sensitive":false}}}`)
	c := Summarise(p, Options{Masker: secret.NewMasker(nil).With("", "CI-SECRET-1", "CI-SECRET-2", "987654321")})
	all := everything(t, c)
	for _, secret := range []string{"CI-SECRET", "987654321"} {
		if strings.Contains(all, secret) {
			t.Errorf("%q appears in %s", secret, all)
		}
	}
	if !strings.Contains(all, TextMasked) || !strings.Contains(all, "987654322") {
		t.Errorf("masking went too far or not at all: %s", all)
	}
}

func TestMaskBeforeTruncation(t *testing.T) {
	long := strings.Repeat("x", 15) + "VERY-LONG-SECRET-VALUE" + strings.Repeat("y", 40)
	p := planWith(t, change(`["update"]`, `{"v":"a"}`, `{"v":"`+long+`"}`, `{}`, `{}`, `{}`, ""))
	c := Summarise(p, Options{Masker: secret.NewMasker(nil).With("VERY-LONG-SECRET-VALUE"), MaxValueLen: 25})
	got := c.Resources[0].Attributes[0].After.Text
	if strings.Contains(got, "VERY") {
		t.Errorf("a truncated secret leaked its beginning: %q", got)
	}
}

// Terraform does not always carry a sensitive marker along with a value: terraform_data
// copies a sensitive input into output without the marker. Values marked anywhere are
// masked everywhere.
func TestHarvestedSecretsMaskedWhereUnmarked(t *testing.T) {
	p := planWith(t,
		change(`["update"]`,
			`{"input":{"pw":"hunter2-old","pin":"123"},"output":{"pw":"hunter2-old","pin":"123"}}`,
			`{"input":{"pw":"hunter2-new","pin":"124"}}`,
			`{"output":true}`,
			`{"input":{"pw":true,"pin":true},"output":{}}`,
			`{"input":{"pw":true,"pin":true}}`, ""),
		`{"address":"t.other","mode":"managed","type":"t","name":"other","change":{"actions":["create"],"before":null,
		  "after":{"copy":"prefix-hunter2-new-suffix"},"after_unknown":{},"before_sensitive":false,"after_sensitive":{}}}`,
	)
	c := Summarise(p, Options{})
	all := everything(t, c)
	if strings.Contains(all, "hunter2") {
		t.Errorf("harvested secret appears: %s", all)
	}
	// Too short to harvest (it would mask every "123" in the plan), but hidden where marked.
	if got := attrLines(c.Resources[0].Attributes); !strings.Contains(got, "input.pin: (sensitive) → (sensitive)") {
		t.Errorf("marked short secret not redacted:\n%s", got)
	}
	if !strings.Contains(all, `prefix-(masked)-suffix`) {
		t.Errorf("substring not masked: %s", all)
	}
}
