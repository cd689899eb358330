package plan

import (
	"maps"
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/astjson"
)

// skimDocs are plans whose skimmed members (prior_state, planned_values, configuration)
// hold what the text harvest must read as the value harvest does: repeated keys, escaped
// and invalid keys, markers whose keys say true, module calls, sensitive configuration.
var skimDocs = map[string]string{
	"repeated key": `{"format_version":"1.2","resource_changes":[],"planned_values":{"root_module":{"resources":[
	  {"values":{"a":"dup-first","a":"dup-last"},"sensitive_values":{"a":true}}]}}}`,
	"repeated key in a values tree": `{"format_version":"1.2","resource_changes":[],"prior_state":{"values":{"root_module":{"resources":[
	  {"values":{"m":{"k":"v1","k":"v2"}},"sensitive_values":{}}]}}}}`,
	"repeated marker": `{"format_version":"1.2","resource_changes":[],"planned_values":{"root_module":{"resources":[
	  {"values":{"a":"dup-marked"},"sensitive_values":{},"sensitive_values":{"a":true}}]}}}`,
	"repeated sensitive flag": `{"format_version":"1.2","resource_changes":[],"configuration":{"root_module":{"outputs":{
	  "o":{"sensitive":false,"sensitive":true,"expression":{"constant_value":"dup-flag-secret"}}}}}}`,
	"escaped keys": `{"format_version":"1.2","resource_changes":[],"planned_values":{"root_module":{"resources":[
	  {"values":{"p\u0061ss":"esc-secret","b\u00e9":"x"},"sensitive_\u0076alues":{"pass":true}}]}}}`,
	"invalid utf-8": "{\"format_version\":\"1.2\",\"planned_values\":{\"root_module\":{\"resources\":[" +
		"{\"values\":{\"k\xff\":\"bad-secret\xfe\"},\"sensitive_values\":{\"k\xff\":true}}]}}}",
	"true only in a key": `{"format_version":"1.2","resource_changes":[],"planned_values":{"root_module":{"resources":[
	  {"values":{"true":{"x":"shown-true"}},"sensitive_values":{"true":{}}}]}}}`,
	"sensitive map": `{"format_version":"1.2","resource_changes":[],"prior_state":{"values":{"root_module":{"resources":[
	  {"values":{"tags":{"map-key-secret":"map-val-secret"},"n":[1,2,31415926]},"sensitive_values":{"tags":true,"n":[false,false,true]}}]}}}}`,
	"configuration": `{"format_version":"1.2","resource_changes":[],"configuration":{"root_module":{
	  "outputs":{"c":{"sensitive":true,"expression":{"constant_value":{"k":"cfg-out-secret"}}}},
	  "variables":{"v":{"sensitive":true,"default":["cfg-default-secret"]}},
	  "module_calls":{"m":{"expressions":{"pw":{"constant_value":"cfg-module-secret"}},
	    "module":{"variables":{"pw":{"sensitive":true}},
	      "module_calls":{"n":{"expressions":{"s":[{"constant_value":"cfg-nested-secret"}]},"module":{"variables":{"s":{"sensitive":true}}}}}}}}}}}`,
	"null members": `{"format_version":"1.2","resource_changes":null,"planned_values":null,"prior_state":null,"configuration":{}}`,
	"changes without markers": `{"format_version":"0.1","resource_changes":[{"address":"a.b","change":{"actions":["update"],
	  "before":{"m":{"k1":"v"}},"after":{"m":{"k2":"w"}},"nested":{"x":"nested-secret"},"nested_sensitive":{"x":true}}}],
	  "resource_drift":[{"address":"a.c","change":{"actions":["update"],"before":{"p":"q"},"after":{"p":"r"},"after_sensitive":{"p":true}}}]}`,
}

// A plan's members no policy reads are harvested from their text: exactly what decoding
// them into values and walking those finds.
func TestSkimmedHarvestMatchesDecoded(t *testing.T) {
	docs := harvestDocs(t)
	for name, doc := range skimDocs {
		docs[name] = []byte(doc)
	}
	for name, data := range docs {
		t.Run(name, func(t *testing.T) {
			want, err := open(data, nil, false) // every member decoded
			if want == nil {
				t.Fatal(err)
			}
			for _, keep := range []*astjson.Paths{ReadsNothing(), readsKeys("resource_changes"), readsTypes()} {
				got, err := open(data, keep, false)
				if got == nil {
					t.Fatal(err)
				}
				sameHarvest(t, "Open", got.h, want.h)
			}
			// ReadDocument skims the resource changes too: the typed plan's harvest
			// (Summarise's) covers them.
			p, _ := Decode(data)
			want.h.plan(newView(p))
			for _, keep := range []*astjson.Paths{ReadsNothing(), readsKeys("configuration"), readsTypes()} {
				_, got, err := ReadDocument(data, Options{}, keep)
				if got == nil {
					t.Fatal(err)
				}
				// Once the masker is made the harvest keeps only the attribute names
				// that spare harvested keys (newMasker): compare those.
				sameHarvest(t, "ReadDocument", keyAttrs(got.h), keyAttrs(want.h))
			}
		})
	}
}

// keyAttrs is h with only the attribute names that are also harvested keys: what
// newMasker reads of the attribute names.
func keyAttrs(h *harvest) *harvest {
	h.foldAttrs()
	out := &harvest{values: h.values, keys: h.keys, attrs: map[string]bool{}}
	for k := range h.keys {
		if h.attrs[k] {
			out.attrs[k] = true
		}
	}
	return out
}

func sameHarvest(t *testing.T, what string, got, want *harvest) {
	t.Helper()
	got.foldAttrs()
	want.foldAttrs()
	if !maps.Equal(got.values, want.values) || !maps.Equal(got.keys, want.keys) || !maps.Equal(got.attrs, want.attrs) {
		t.Errorf("%s: skimmed harvest differs:\n values %v\n  want %v\n keys %v\n  want %v\n attrs %v\n  want %v",
			what, short(got.values), short(want.values), short(got.keys), short(want.keys), got.attrs, want.attrs)
	}
}

// A secret that appears only in members no policy reads (and that the review never shows)
// is masked in what policies say, and in the review's text.
func TestSecretOnlyInSkippedSectionMasked(t *testing.T) {
	doc := `{"format_version":"1.2","resource_changes":[],"terraform_version":"1.9.8",
	  "prior_state":{"values":{"root_module":{"resources":[{"address":"t.a","values":{"token":"prior-only-canary"},"sensitive_values":{"token":true}}]}}},
	  "planned_values":{"root_module":{"resources":[{"address":"t.a","values":{"cert":{"pem":"planned-only-canary"}},"sensitive_values":{"cert":{"pem":true}}}]}},
	  "configuration":{"root_module":{"module_calls":{"m":{"expressions":{"pw":{"constant_value":"config-only-canary"}},
	    "module":{"variables":{"pw":{"sensitive":true}}}}}}},
	  "resource_changes":[{"address":"t.a","mode":"managed","type":"t","name":"a",
	    "change":{"actions":["update"],"before":{"note":"old"},"after":{"note":"new"},"before_sensitive":{},"after_sensitive":{},"after_unknown":{}}}]}`
	canaries := []string{"prior-only-canary", "planned-only-canary", "config-only-canary"}
	d, err := Open([]byte(doc), OpenOptions{Reads: readsKeys("resource_changes")})
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := ReadDocument([]byte(doc), Options{}, ReadsNothing())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range canaries {
		for what, got := range map[string]string{"policies": d.Masker().String("deny: " + s), "review": c.Masker().String("note " + s)} {
			if strings.Contains(got, s) {
				t.Errorf("%s: %s not masked: %q", what, s, got)
			}
		}
	}
	if got := d.Masker().String("old new t.a"); got != "old new t.a" {
		t.Errorf("masked what is no secret: %q", got)
	}
}

// A malformed skimmed member is refused with Decode's message, as a decoded one is.
func TestOpenSkimmedRejectsLikeDecode(t *testing.T) {
	bad := []string{
		`{"format_version":"1.2","resource_changes":[],"planned_values":{"a":[1,2}}`,
		`{"format_version":"1.2","resource_changes":[],"prior_state":{"a":tru}}`,
		`{"format_version":"1.2","resource_changes":[],"configuration":{"a" 1}}`,
		`{"format_version":"1.2","resource_changes":[],"configuration":{"a":"\x"}}`,
		`{"format_version":"1.2","resource_changes":[],"planned_values":{"outputs":{"o":{"sensitive":"yes"}}}}`,
		`{"format_version":"1.2","resource_changes":[],"prior_state":{"values":"v"}}`,
	}
	for _, doc := range append(bad, rejectInputs()...) {
		_, want := Decode([]byte(doc))
		d, err := Open([]byte(doc), OpenOptions{Reads: ReadsNothing()})
		if want == nil {
			continue
		}
		if err == nil || err.Error() != want.Error() || d != nil {
			t.Errorf("%.80q: Open = %v, want Decode's %v", doc, err, want)
		}
	}
}

func rejectInputs() []string {
	var out []string
	for _, tt := range rejectCases {
		out = append(out, tt.input)
	}
	return out
}

// readsKeys reads the top-level members keys, whole.
func readsKeys(keys ...string) *astjson.Paths {
	p := astjson.NoPaths()
	for _, k := range keys {
		p.Add([]astjson.Seg{{Key: k}}, true)
	}
	return p
}

// readsTypes reads the type of each resource change and the tags it sets: the resource
// changes are then decoded element by element and pruned (prune.go).
func readsTypes() *astjson.Paths {
	p := astjson.NoPaths()
	p.Add([]astjson.Seg{{Key: "resource_changes"}, {Any: true}, {Key: "type"}}, true)
	p.Add([]astjson.Seg{{Key: "resource_changes"}, {Any: true}, {Key: "change"}, {Key: "after"}, {Key: "tags"}}, true)
	return p
}
