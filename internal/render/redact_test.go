package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/plan"
	"github.com/tfgate/tfgate/internal/report"
	"github.com/tfgate/tfgate/internal/secret"
)

// Every secret the tests plant starts and ends with a marker, so a leak of either end (a
// truncated or focused value) is caught, and contains characters that escaping changes.
const (
	secretHead = "SeKrEt"
	secretTail = "TeRcEs"
	maskHead   = "MaSkMe"
)

// renderAll renders c every way tfgate can: text at several widths, with and without
// colour, as a plan and inside a report, and JSON.
func renderAll(t *testing.T, c *plan.Changes) string {
	t.Helper()
	var all bytes.Buffer
	for _, opts := range []TextOptions{{Width: 80}, {Width: 40, Color: true}, {Width: 200}} {
		if err := PlanText(&all, c, opts); err != nil {
			t.Fatal(err)
		}
		r := report.Run{Projects: []report.Project{{Name: "p", Status: report.StatusPlanned, Changes: c}}}
		if err := Text(&all, r, opts); err != nil {
			t.Fatal(err)
		}
	}
	if err := PlanJSON(&all, c); err != nil {
		t.Fatal(err)
	}
	if err := JSON(&all, report.Run{Projects: []report.Project{{Name: "p", Status: report.StatusPlanned, Changes: c}}}); err != nil {
		t.Fatal(err)
	}
	return all.String()
}

func assertNoSecrets(t *testing.T, out string, planJSON []byte) {
	t.Helper()
	for _, s := range []string{secretHead, secretTail, maskHead} {
		if i := strings.Index(out, s); i >= 0 {
			t.Fatalf("%q leaked: …%s…\nplan: %s", s, out[max(0, i-200):min(len(out), i+100)], planJSON)
		}
	}
}

func TestRedactionFixture(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "plans", "sensitive.json"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := plan.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	out := renderAll(t, plan.Summarise(p, plan.Options{}))
	assertNoSecrets(t, out, nil)
	// Not vacuous: the non-secret parts are shown.
	for _, want := range []string{"db.new", "carol", "(sensitive)", `version: 1 → 2`} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
}

// TestRedactionRandomPlans builds random plans in which secrets sit under sensitivity
// markers at every depth and shape (whole objects, map values and keys, list elements,
// objects in lists, sets, whole resources, outputs, drift), sometimes reappear unmarked
// (as terraform_data.output does), and checks that none ever reaches any rendered output.
func TestRedactionRandomPlans(t *testing.T) {
	seen := map[string]bool{}
	for seed := range uint64(400) {
		g := &planGen{r: rand.New(rand.NewPCG(seed, 42))}
		js := g.plan()
		p, err := plan.Decode(js)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		c := plan.Summarise(p, plan.Options{Masker: secret.NewMasker(nil).With(g.masks...)})
		out := renderAll(t, c)
		assertNoSecrets(t, out, js)
		for _, s := range []string{"(sensitive)", "(masked)", "plain", "(known after apply)"} {
			seen[s] = seen[s] || strings.Contains(out, s)
		}
	}
	for s, ok := range seen {
		if !ok {
			t.Errorf("no random plan rendered %q: the generator lost coverage", s)
		}
	}
}

type planGen struct {
	r     *rand.Rand
	n     int
	masks []string
}

func (g *planGen) secret() string {
	g.n++
	return fmt.Sprintf("%s-%d-\"q\"\n\u00e9-%s", secretHead, g.n, secretTail)
}

func (g *planGen) plainLeaf() any {
	g.n++
	switch g.r.IntN(5) {
	case 0:
		return g.r.IntN(1000)
	case 1:
		return g.r.IntN(2) == 0
	case 2:
		return nil
	case 3:
		m := fmt.Sprintf("%s-%d", maskHead, g.n)
		g.masks = append(g.masks, m)
		return "url-with-" + m + "-inside"
	}
	return fmt.Sprintf("plain-%d", g.n)
}

func (g *planGen) key(sensitive bool) string {
	if sensitive && g.r.IntN(2) == 0 {
		return g.secret() // keys of a sensitive map are secret too
	}
	g.n++
	return fmt.Sprintf("k%d", g.n)
}

// value returns a random value and its sensitivity marker. Under a sensitive parent every
// string is a secret; otherwise a subtree turns sensitive now and then.
func (g *planGen) value(depth int, sensitive bool) (v, marker any) {
	if !sensitive && g.r.IntN(4) == 0 {
		v, _ = g.value(depth, true)
		return v, true
	}
	kind := g.r.IntN(6)
	if depth >= 3 {
		kind = 0
	}
	switch kind {
	case 0, 1:
		if sensitive {
			if g.r.IntN(4) == 0 {
				return g.r.IntN(2) == 0, nil
			}
			return g.secret(), nil
		}
		return g.plainLeaf(), false
	case 2, 3: // object or map
		m, mk := map[string]any{}, map[string]any{}
		for range g.r.IntN(4) {
			k := g.key(sensitive)
			m[k], mk[k] = g.value(depth+1, sensitive)
		}
		return m, mk
	default: // list or set: of primitives or of objects
		var l, lk []any
		for range g.r.IntN(4) {
			e, ek := g.value(depth+1, sensitive)
			l, lk = append(l, e), append(lk, ek)
		}
		return l, lk
	}
}

// mutate derives an after value: leaves change (secrets to new secrets), keys and elements
// come and go, and sensitivity can change.
func (g *planGen) mutate(v, marker any, depth int) (any, any) {
	if marker == true {
		switch g.r.IntN(4) {
		case 0:
			return g.value(depth, false) // no longer sensitive
		case 1:
			nv, _ := g.value(depth, true)
			return nv, true
		}
		return v, true
	}
	switch t := v.(type) {
	case map[string]any:
		mk, _ := marker.(map[string]any)
		out, outk := map[string]any{}, map[string]any{}
		for k, e := range t {
			switch g.r.IntN(5) {
			case 0: // removed
			case 1, 2:
				out[k], outk[k] = g.mutate(e, mk[k], depth+1)
			default:
				out[k], outk[k] = e, mk[k]
			}
		}
		if g.r.IntN(3) == 0 {
			k := g.key(false)
			out[k], outk[k] = g.value(depth+1, false)
		}
		return out, outk
	case []any:
		lk, _ := marker.([]any)
		var out, outk []any
		for i, e := range t {
			if g.r.IntN(5) == 0 {
				continue
			}
			var ek any
			if i < len(lk) {
				ek = lk[i]
			}
			ne, nk := g.mutate(e, ek, depth+1)
			out, outk = append(out, ne), append(outk, nk)
		}
		if g.r.IntN(3) == 0 {
			e, ek := g.value(depth+1, false)
			out, outk = append(out, e), append(outk, ek)
		}
		return out, outk
	}
	if g.r.IntN(2) == 0 {
		return g.value(depth, false)
	}
	return v, marker
}

func (g *planGen) object() (map[string]any, map[string]any) {
	obj, mk := map[string]any{}, map[string]any{}
	for range 1 + g.r.IntN(5) {
		k := g.key(false)
		obj[k], mk[k] = g.value(1, false)
	}
	return obj, mk
}

func (g *planGen) resource(i int) map[string]any {
	before, bs := g.object()
	afterV, asV := g.mutate(before, bs, 0)
	after, _ := afterV.(map[string]any)
	as, _ := asV.(map[string]any)
	unknown := map[string]any{}
	if g.r.IntN(3) == 0 {
		k := g.key(false)
		unknown[k] = true
	}
	var bsm, asm any = bs, as
	if g.r.IntN(10) == 0 {
		bsm, asm = true, true // the whole resource is sensitive
	}
	actions := [][]any{{"update"}, {"create"}, {"delete"}, {"delete", "create"}, {"create", "delete"}, {"no-op"}, {"read"}}[g.r.IntN(7)]
	ch := map[string]any{"actions": actions, "before": before, "after": after, "after_unknown": unknown,
		"before_sensitive": bsm, "after_sensitive": asm}
	switch actions[0] {
	case "create", "read":
		ch["before"], ch["before_sensitive"] = nil, false
	case "delete":
		if len(actions) == 1 {
			ch["after"], ch["after_sensitive"] = nil, false
		}
	}
	if g.r.IntN(3) == 0 {
		// A secret marked in one attribute and copied into another that terraform did not
		// mark (as terraform_data.output does). Keys of sensitive maps are hidden where
		// marked but not hunted down elsewhere, so only values are copied.
		obj, mk := after, as
		if ch["after"] == nil {
			obj, mk = before, bs
		}
		secret := g.secret()
		obj["marked"], obj["copy"] = secret, "prefix "+secret+" suffix"
		mk["marked"], mk["copy"] = true, false
	}
	if len(actions) == 2 {
		for k := range before {
			ch["replace_paths"] = []any{[]any{k}}
			break
		}
	}
	return map[string]any{"address": fmt.Sprintf("t.r%d", i), "mode": "managed", "type": "t", "name": fmt.Sprintf("r%d", i), "change": ch}
}

func (g *planGen) plan() []byte {
	var changes, drift []any
	for i := range 1 + g.r.IntN(8) {
		changes = append(changes, g.resource(i))
	}
	for i := range g.r.IntN(3) {
		d := g.resource(100 + i)
		d["change"].(map[string]any)["actions"] = []any{"update"}
		drift = append(drift, d)
	}
	outputs := map[string]any{}
	for i := range g.r.IntN(4) {
		v, m := g.value(1, false)
		nv, nm := g.mutate(v, m, 1)
		outputs[fmt.Sprintf("out%d", i)] = map[string]any{"actions": []any{"update"}, "before": v, "after": nv,
			"after_unknown": false, "before_sensitive": m, "after_sensitive": nm}
	}
	plan := map[string]any{
		"format_version": "1.2", "terraform_version": "1.9.8",
		"variables":        map[string]any{"pw": map[string]any{"value": g.secret()}},
		"configuration":    map[string]any{"root_module": map[string]any{"variables": map[string]any{"pw": map[string]any{"default": g.secret(), "sensitive": true}}}},
		"resource_changes": changes, "resource_drift": drift, "output_changes": outputs,
	}
	js, err := json.Marshal(plan)
	if err != nil {
		panic(err)
	}
	return js
}
