package plan

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/tfgate/tfgate/internal/plan/plangen"
)

// checkSameDecode fails t when Decode's fast path gives anything but what encoding/json
// gives for data: the plan (reflect.DeepEqual), the error's text, and the leanPlan itself
// whenever decodeFast accepts data. It reports whether decodeFast accepted data.
func checkSameDecode(t testing.TB, data []byte) bool {
	t.Helper()
	pf, errFast := decode(data, true)
	ps, errStd := decode(data, false)
	if !reflect.DeepEqual(pf, ps) {
		t.Errorf("fast plan differs from encoding/json's for %.200q:\nfast %#v\nstd  %#v", data, pf, ps)
	}
	if errText(errFast) != errText(errStd) {
		t.Errorf("fast error %q, encoding/json's %q for %.200q", errText(errFast), errText(errStd), data)
	}
	var fast, std leanPlan
	trimmed := bytes.TrimPrefix(data, utf8BOM)
	if !decodeFast(trimmed, &fast) {
		if !reflect.DeepEqual(fast, leanPlan{}) {
			t.Errorf("decodeFast gave up but changed its leanPlan for %.200q", data)
		}
		return false
	}
	if err := decodeStd(trimmed, &std); err != nil {
		t.Errorf("decodeFast accepted %.200q, encoding/json: %v", data, err)
	} else if !reflect.DeepEqual(fast, std) {
		t.Errorf("fast leanPlan differs for %.200q:\nfast %#v\nstd  %#v", data, fast, std)
	}
	return true
}

func errText(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// planFixtures are the plan JSON files of the repository's tests: every testdata JSON file
// and every JSON file in a testscript that has a format_version, by name.
func planFixtures(t testing.TB) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	files, err := filepath.Glob("../*/testdata/*.json")
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob("../*/testdata/*/*.json")
	for _, name := range append(files, more...) {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		out[name] = data
	}
	scripts, _ := filepath.Glob("../../cmd/tfgate/testdata/script/*.txtar")
	for _, name := range scripts {
		ar, err := txtar.ParseFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range ar.Files {
			if strings.HasSuffix(f.Name, ".json") && bytes.Contains(f.Data, []byte(`"format_version"`)) {
				out[name+"/"+f.Name] = f.Data
			}
		}
	}
	if len(out) < 10 {
		t.Fatalf("only %d fixtures found", len(out))
	}
	return out
}

func TestDecodeFastMatchesStdOnFixtures(t *testing.T) {
	for name, data := range planFixtures(t) {
		checkSameDecode(t, data)
		// A plan that encoding/json reads is one the fast path must decide: a change
		// that made it give up on terraform's own output would silently lose the speed.
		if _, err := decode(data, false); err == nil || strings.Contains(err.Error(), "incomplete") {
			if !decodeFast(bytes.TrimPrefix(data, utf8BOM), new(leanPlan)) {
				t.Errorf("%s: the fast path gave up on a plan", name)
			}
		}
	}
}

func TestDecodeFastMatchesStdOnGenerated(t *testing.T) {
	for _, n := range []int{0, 1, 7, 300} {
		if !checkSameDecode(t, plangen.Generate(n)) {
			t.Errorf("Generate(%d): the fast path gave up", n)
		}
	}
}

// TestDecodeTakesFastPath holds Decode itself to the fast path: the counter moves only when
// decodeFast decided the plan.
func TestDecodeTakesFastPath(t *testing.T) {
	before := fastDecodes.Load()
	data, err := os.ReadFile("testdata/checks-1.5.7.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Decode(data); err != nil {
		t.Fatal(err)
	}
	if _, err := Decode(plangen.Generate(20)); err != nil {
		t.Fatal(err)
	}
	if got := fastDecodes.Load() - before; got < 2 {
		t.Errorf("Decode took the fast path %d times for 2 plans", got)
	}
}

// TestFastFieldsCoverStructs holds the fast path's field lists to the structs encoding/json
// fills: a field added to leanPlan or by a terraform-json upgrade must be decoded fast
// too, or encoding/json would fill it and the fast path not.
func TestFastFieldsCoverStructs(t *testing.T) {
	for _, tt := range []struct {
		typ    reflect.Type
		fields []string
	}{
		{reflect.TypeFor[leanPlan](), fastPlanFields},
		{reflect.TypeFor[tfjson.ResourceChange](), fastResourceChangeFields},
		{reflect.TypeFor[tfjson.Change](), fastChangeFields},
		{reflect.TypeFor[tfjson.Importing](), fastImportingFields},
		{reflect.TypeFor[leanValues](), fastOutputsFields},
		{reflect.TypeFor[leanPriorValues](), fastOutputsFields},
		{reflect.TypeOf(leanPlan{}.PriorState).Elem(), fastValuesFields},
	} {
		if got := jsonFieldNames(tt.typ); !reflect.DeepEqual(got, tt.fields) {
			t.Errorf("%v: encoding/json fields %q, fast path %q", tt.typ, got, tt.fields)
		}
	}
}

func jsonFieldNames(typ reflect.Type) []string {
	var names []string
	for f := range typ.Fields() {
		if f.Anonymous {
			names = append(names, "embedded "+f.Name) // encoding/json would promote its fields
			continue
		}
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch name {
		case "-":
			continue
		case "":
			name = f.Name
		}
		names = append(names, name)
	}
	return names
}
