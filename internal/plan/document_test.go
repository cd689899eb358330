package plan

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/tfgate/tfgate/internal/astjson"
	"github.com/tfgate/tfgate/internal/plan/plangen"
	"github.com/tfgate/tfgate/internal/secret"
)

// Open refuses what Decode refuses, with the same message.
func TestOpenRejectsLikeDecode(t *testing.T) {
	for _, tt := range rejectCases {
		t.Run(tt.name, func(t *testing.T) {
			_, want := Decode([]byte(tt.input))
			d, err := Open([]byte(tt.input), OpenOptions{})
			if err == nil {
				t.Fatalf("Open succeeded: %v", d.Input())
			}
			if err.Error() != want.Error() {
				t.Errorf("Open: %q\nDecode: %q", err, want)
			}
			if d != nil {
				t.Errorf("document returned with error %v", err)
			}
		})
	}
}

// harvestDocs are plans whose secrets hide in every place the harvest knows.
func harvestDocs(t *testing.T) map[string][]byte {
	t.Helper()
	docs := map[string][]byte{
		"generated": plangen.Generate(300),
		"sensitive root variable": []byte(`{"format_version":"1.2","variables":{"pw":{"value":"hunter2-very-secret"},"plain":{"value":"shown"}},
		  "configuration":{"root_module":{"variables":{"pw":{"sensitive":true},"plain":{}}}},"resource_changes":[]}`),
		"legacy sensitive output": []byte(`{"format_version":"0.1","terraform_version":"0.12.31",
		  "planned_values":{"outputs":{"o":{"sensitive":true}}},"prior_state":{"values":{"outputs":{"p":{"sensitive":true,"value":"prior-secret"}}}},
		  "output_changes":{"o":{"actions":["create"],"before":null,"after":{"k":"legacy-secret","n":12345678}},
		                    "p":{"actions":["create"],"before":null,"after":"p-secret"},"q":{"actions":["create"],"after":"shown"}}}`),
		"markers at the top level": []byte(`{"format_version":"1.2","planned_values":{},"sensitive":true,"value":"top-secret",
		  "thing":{"a":"top-pair-secret"},"thing_sensitive":{"a":true}}`),
	}
	for _, dir := range []string{"testdata", "../policy/testdata"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			docs[f] = data
		}
	}
	return docs
}

// secrets are what each of harvestDocs must mask.
var secrets = map[string][]string{
	"sensitive root variable":  {"hunter2-very-secret"},
	"legacy sensitive output":  {"legacy-secret", "12345678", "prior-secret", "p-secret"},
	"markers at the top level": {"top-secret", "top-pair-secret"},
}

// The harvest over the decoded value finds exactly what the reference harvest (over
// encoding/json values, plus the typed plan's) finds.
func TestHarvestValueMatchesReference(t *testing.T) {
	for name, data := range harvestDocs(t) {
		t.Run(name, func(t *testing.T) {
			want := newHarvest()
			want.referenceDocument(data)
			p, err := Decode(data)
			if p == nil {
				t.Fatal(err)
			}
			want.plan(newView(p))

			d, err := Open(data, OpenOptions{})
			if d == nil {
				t.Fatal(err)
			}
			same := func(what string, got, want map[string]struct{}) {
				if !maps.Equal(got, want) {
					t.Errorf("%s: got %d, want %d\n got %v\nwant %v", what, len(got), len(want), short(got), short(want))
				}
			}
			same("values", d.h.values, want.values)
			same("keys", d.h.keys, want.keys)
			d.h.foldAttrs()
			want.foldAttrs()
			if !maps.Equal(d.h.attrs, want.attrs) {
				t.Errorf("attrs: got %d, want %d", len(d.h.attrs), len(want.attrs))
			}
			// Read's harvest is Open's plus the typed plan's, which adds nothing more.
			c, _, err := ReadDocument(data, Options{}, nil)
			if c == nil {
				t.Fatal(err)
			}
			for _, s := range secrets[name] {
				if d.Masker().String(s) == s || c.Masker().String(s) == s {
					t.Errorf("%s is not masked", s)
				}
			}
			if d.Masker().String("shown") != "shown" {
				t.Error(`"shown" is masked`)
			}
		})
	}
}

func short(m map[string]struct{}) []string {
	var out []string
	for k := range m {
		if len(out) == 20 {
			out = append(out, "…")
			break
		}
		out = append(out, k)
	}
	return out
}

// Input holds the members Reads names, exactly as a whole decoding gives them.
func TestOpenKeeps(t *testing.T) {
	data := plangen.Generate(50)
	whole, err := astjson.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Open(append([]byte("\ufeff"), data...), OpenOptions{Reads: readsKeys("resource_changes", "variables")})
	if err != nil {
		t.Fatal(err)
	}
	in, ok := d.Input().(ast.Object)
	if !ok || in.Len() != 2 {
		t.Fatalf("input %T with %v keys, want resource_changes and variables", d.Input(), in.Keys())
	}
	for _, k := range []string{"resource_changes", "variables"} {
		key := ast.StringTerm(k)
		if in.Get(key).Value.Compare(whole.(ast.Object).Get(key).Value) != 0 {
			t.Errorf("%s differs from a whole decoding", k)
		}
	}
	all, err := Open(data, OpenOptions{})
	if err != nil || all.Input().Compare(whole) != 0 {
		t.Errorf("Keep nil: input differs from a whole decoding (%v)", err)
	}
	// The caller's masks are in the masker.
	m, err := Open(data, OpenOptions{Masker: secret.NewMasker([]string{"caller-secret-value"})})
	if err != nil || m.Masker().String("a caller-secret-value") != "a (masked)" {
		t.Errorf("caller's secret not masked (%v)", err)
	}
}

func TestOpenErrored(t *testing.T) {
	d, err := Open([]byte(`{"format_version":"1.2","errored":true,"resource_changes":[]}`), OpenOptions{})
	if !errors.Is(err, ErrErrored) || d == nil {
		t.Errorf("Open = %v, %v; want the document and ErrErrored", d, err)
	}
}

// A member whose shape only looks wrong to Open's quick check, and that Decode takes, is
// opened all the same.
func TestOpenShapeFalseAlarm(t *testing.T) {
	// Decode ignores fields it does not read; Open's check does not look at them either,
	// but a null where an array is expected is the shape both accept.
	d, err := Open([]byte(`{"format_version":"1.2","resource_changes":null,"planned_values":{"outputs":null},"output_changes":{"o":null}}`), OpenOptions{})
	if err != nil || d == nil {
		t.Fatalf("Open: %v", err)
	}
}
