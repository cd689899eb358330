package plan

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/tfgate/tfgate/internal/plan/plangen"
)

// An adversary's audit of Decode's fast path (decodefast*.go): inputs a pull-request author
// can shape (attribute, output and variable values, keys, and a bundle's plan JSON itself),
// each held to what encoding/json gives with checkSameDecode.

// auditSeeds are realistic plans to mutate: the package's fixtures, the policy fixture and
// generated plans.
func auditSeeds(t testing.TB) [][]byte {
	t.Helper()
	var out [][]byte
	for _, name := range []string{
		"testdata/checks-1.5.7.json", "testdata/outputs-changed-1.5.7.json",
		"testdata/outputs-new-1.5.7.json", "../policy/testdata/plan_mixed.json",
	} {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, data)
	}
	return append(out, []byte(fastBase), plangen.Generate(3))
}

// keyRE finds object keys: a string followed by a colon.
var keyRE = regexp.MustCompile(`"(?:[^"\\]|\\.)*"\s*:`)

// strRE finds strings (keys and values alike).
var strRE = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

// valueEnd is the offset just past the JSON value starting at data[start:] (after white
// space), or -1 when there is none.
func valueEnd(data []byte, start int) int {
	dec := json.NewDecoder(bytes.NewReader(data[start:]))
	var raw json.RawMessage
	if dec.Decode(&raw) != nil {
		return -1
	}
	return start + int(dec.InputOffset())
}

// auditPayloads are the texts an author puts in a value or key: escapes, surrogates,
// invalid UTF-8, case folds, numbers, literals.
var auditPayloads = []string{
	`"\u0000"`, `"\ud800"`, `"\udfff\ud800"`, `"\ud83d\ude00"`, `"\\ud800"`, `"\u00e9\u2028\u2029"`,
	"\"\xed\xa0\x80\"", "\"\xc0\xaf\"", "\"\xf4\x90\x80\x80\"", "\"a\xff\"", "\"\xe2\x82\"", `"\/\b\f\n\r\t"`,
	`"ſ"`, `"K"`, `"ADDRESS"`, `"Actions"`, `"\u0061ddress"`, `"address"`, `"actions"`, `"change"`,
	`-0`, `1E5`, `1e-7`, `1e999999999`, `0.0000000000000000000000001`, `123456789012345678901234567890`,
	`null`, `true`, `false`, `[]`, `{}`, `[null]`, `{"":null}`, `{"a":1,"a":2}`, `[[[[]]]]`,
	`"` + strings.Repeat("x", 64) + `"`, `"` + strings.Repeat("y", 65) + `"`, `"` + strings.Repeat("\\u00e9", 40) + `"`,
}

// planTokens are the offsets of a plan's keys and strings, for mutate.
type planTokens struct{ keys, strs [][]int }

func tokenize(plan []byte) planTokens {
	return planTokens{keyRE.FindAllIndex(plan, -1), strRE.FindAllIndex(plan, -1)}
}

// mutate applies one adversarial edit, chosen by op and at (which occurrence), to plan.
func mutate(plan []byte, tok planTokens, op, at, payload uint8) []byte {
	keys, strs := tok.keys, tok.strs
	if len(keys) == 0 || len(strs) == 0 {
		return plan
	}
	k := keys[int(at)%len(keys)]
	s := strs[int(at)%len(strs)]
	p := auditPayloads[int(payload)%len(auditPayloads)]
	splice := func(start, end int, with string) []byte {
		out := append([]byte{}, plan[:start]...)
		out = append(out, with...)
		return append(out, plan[end:]...)
	}
	keyText := string(plan[k[0] : bytes.LastIndexByte(plan[k[0]:k[1]], '"')+k[0]+1])
	switch op % 8 {
	case 0: // a string value or key becomes the payload
		return splice(s[0], s[1], p)
	case 1: // a member is repeated, with the payload as its new value
		if end := valueEnd(plan, k[1]); end > 0 {
			return splice(end, end, ","+keyText+":"+p)
		}
	case 2: // a member is repeated whole, before itself
		if end := valueEnd(plan, k[1]); end > 0 {
			return splice(k[0], k[0], string(plan[k[0]:end])+",")
		}
	case 3: // a key changes case, or is folded into Unicode
		folds := []func(string) string{
			strings.ToUpper,
			func(s string) string { return `"` + strings.ToUpper(s[1:2]) + s[2:] }, // "Address"
			func(s string) string { return strings.Replace(s, "s", "ſ", 1) },
			func(s string) string { return strings.Replace(s, "k", "\u212a", 1) },
			func(s string) string { return strings.Replace(s, "a", `\u0061`, 1) },
			func(s string) string { return strings.Replace(s, "e", `\u0045`, 1) },
		}
		return splice(k[0], k[0]+len(keyText), folds[int(payload)%len(folds)](keyText))
	case 4: // a member's value becomes the payload
		if end := valueEnd(plan, k[1]); end > 0 {
			return splice(k[1], end, p)
		}
	case 5: // a member is added, keyed by the payload
		if strings.HasPrefix(p, `"`) {
			return splice(k[0], k[0], p+":1,")
		}
	case 6: // white space of another kind, or a BOM, between planTokens
		ws := []string{"\v", "\f", "\u00a0", "\u0085", "\ufeff", "\x00", " \t\r\n"}
		return splice(k[1], k[1], ws[int(payload)%len(ws)])
	case 7: // the plan is cut, or has something after it
		if payload%2 == 0 {
			return plan[:s[1]]
		}
		return append(append([]byte{}, plan...), p...)
	}
	return plan
}

// FuzzDecodeFastAuditMutations is checkSameDecode on adversarial edits of realistic plans:
// repeated members at every level, folded keys, odd strings and numbers, cut plans.
func FuzzDecodeFastAuditMutations(f *testing.F) {
	seeds := auditSeeds(f)
	toks := make([]planTokens, len(seeds))
	for i := range seeds {
		toks[i] = tokenize(seeds[i])
		for op := range 8 {
			f.Add(uint8(i), uint8(op), uint8(3*op+i), uint8(op*7+i), uint8(op), uint8(i*5))
		}
	}
	f.Fuzz(func(t *testing.T, seed, op, at, payload, op2, at2 uint8) {
		i := int(seed) % len(seeds)
		data := mutate(seeds[i], toks[i], op, at, payload)
		if op2%3 == 0 { // a second edit now and then
			data = mutate(data, tokenize(data), op2/3, at2, payload+op2)
		}
		checkSameDecode(t, data)
	})
}

// TestDecodeFastAuditMutationsMany runs every edit at each of the first keys of every seed
// with every payload, and at each later key with one payload (the fuzz target does more).
func TestDecodeFastAuditMutationsMany(t *testing.T) {
	for i, seed := range auditSeeds(t) {
		tok := tokenize(seed)
		n := min(len(tok.keys), 128)
		for op := range 8 {
			for at := range n {
				for payload := range len(auditPayloads) {
					if at >= 4 && payload != (at*7+op)%len(auditPayloads) {
						continue
					}
					checkSameDecode(t, mutate(seed, tok, uint8(op), uint8(at), uint8(payload)))
					if t.Failed() {
						t.Fatalf("seed %d op %d at %d payload %d", i, op, at, payload)
					}
				}
			}
		}
	}
}

// TestDecodeFastOwnsItsStrings holds the decoded plan apart from its input: a caller that
// reuses or unmaps the buffer (policy eval's mapped input, ReadDocument's released pages)
// must not change what was decoded. Every string kind is there: short (shared by the
// intern cache), long, escaped, keys, numbers, output names, index.
func TestDecodeFastOwnsItsStrings(t *testing.T) {
	long := strings.Repeat("L", 200)
	text := strings.NewReplacer("LONG", long).Replace(`{"format_version":"1.2","terraform_version":"1.5.7",` +
		`"resource_changes":[{"address":"a.b[\"k\"]","mode":"managed","type":"t","name":"b","index":"k",` +
		`"provider_name":"p","change":{"actions":["update"],"before":{"s":"x","LONG":"LONG","e":"\u00e9\n",` +
		`"n":12345678901234567890123456789012345678901234567890123456789012345678901234567890,"m":1.5},` +
		`"after":{"s":"y","LONG":"LONGLONG"},"replace_paths":[["s"]],"importing":{"id":"LONG"}}}],` +
		`"output_changes":{"LONG":{"actions":["create"],"after":"LONG"},"o":{"actions":["create"],"after":7}},` +
		`"planned_values":{"outputs":{"LONG":{"sensitive":true}}},` +
		`"configuration":{"root_module":{"variables":{"pw":{"sensitive":true}}}},"variables":{"pw":{"value":"LONG"}}}`)
	for _, fast := range []bool{true, false} {
		buf := []byte(text)
		got, err := decode(buf, fast)
		if err != nil {
			t.Fatal(err)
		}
		if fast && !decodeFast(buf, new(leanPlan)) {
			t.Fatal("the fast path gave up")
		}
		for i := range buf {
			buf[i] = 'Z' // what a released or reused page might read as
		}
		want, err := decode([]byte(text), fast)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("fast=%v: the decoded plan changed with its input:\n%#v\nwant %#v", fast, got, want)
		}
	}
}

// TestDecodeFastConcurrent decodes plans in parallel (several projects at once, and
// ReadDocument's Decode beside open): run with -race, each result must be its own.
func TestDecodeFastConcurrent(t *testing.T) {
	plans := auditSeeds(t)
	want := make([]any, len(plans))
	for i, data := range plans {
		p, err := Decode(data)
		want[i] = []any{p, errText(err)}
	}
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for r := range 20 {
				i := (w + r) % len(plans)
				p, err := Decode(plans[i])
				if got := []any{p, errText(err)}; !reflect.DeepEqual(got, want[i]) {
					t.Errorf("plan %d decoded differently in parallel", i)
				}
			}
		})
	}
	wg.Wait()
}

// terraformPlanWith is fastBase with s (any Go string) as terraform writes it (encoding/json,
// which replaces invalid UTF-8 and escapes no surrogate) as an attribute value, a key of a
// value, an output name and a for_each key.
func terraformPlanWith(s string) []byte {
	q, _ := json.Marshal(s)
	r := strings.NewReplacer(`"s":"x"`, `"s":`+string(q), `"m":{}`, `"m":{`+string(q)+`:1}`,
		`"o":{"actions"`, string(q)+`:{"actions"`, `"index":0`, `"index":`+string(q))
	return []byte(r.Replace(fastBase))
}

// TestDecodeFastTakesTerraformStrings: any text a pull-request author gives a value (a
// comment in a script, a Windows path) is decoded fast. The text \ud800 made the fast path
// give up on the whole plan: the Lexer took its escaped backslash for an escaped surrogate.
func TestDecodeFastTakesTerraformStrings(t *testing.T) {
	for _, s := range []string{`\ud800`, `C:\udata\dbase`, `\\uDFFF`, `\\\udc00x`, "\xff\xfe", "é\u2028<&>", "\x00\x1f"} {
		if !checkSameDecode(t, terraformPlanWith(s)) {
			t.Errorf("the fast path gave up on a plan with the text %q", s)
		}
	}
}

// FuzzDecodeFastTakesTerraformStrings is TestDecodeFastTakesTerraformStrings for any text.
func FuzzDecodeFastTakesTerraformStrings(f *testing.F) {
	for _, s := range []string{`\ud800`, `C:\udata`, "\xed\xa0\x80", "\\\"", "K"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !checkSameDecode(t, terraformPlanWith(s)) {
			t.Errorf("the fast path gave up on a plan with the text %q", s)
		}
	})
}

// TestReadDocumentConcurrent is TestDecodeFastConcurrent for ReadDocument, whose Decode runs
// beside open on the same bytes: run with -race.
func TestReadDocumentConcurrent(t *testing.T) {
	plans := auditSeeds(t)
	want := make([]*Changes, len(plans))
	for i, data := range plans {
		c, _, err := ReadDocument(data, Options{}, nil)
		if err != nil && !errors.Is(err, ErrErrored) {
			t.Fatalf("plan %d: %v", i, err)
		}
		want[i] = c
	}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for r := range 6 {
				i := (w + r) % len(plans)
				c, _, _ := ReadDocument(plans[i], Options{}, nil)
				if !reflect.DeepEqual(c.Resources, want[i].Resources) || !reflect.DeepEqual(c.Outputs, want[i].Outputs) {
					t.Errorf("plan %d read differently in parallel", i)
				}
			}
		})
	}
	wg.Wait()
}

// deepAtEnd is plan with a value nested n deep in its last resource change's after: a
// jsondecode in a pull request's configuration writes one, and the fast path reads the
// whole plan before it meets it.
func deepAtEnd(plan []byte, n int) []byte {
	return atEnd(plan, `"deep":`+strings.Repeat("[", n)+strings.Repeat("]", n)+",")
}

// atEnd is plan with member added to its last resource change's after.
func atEnd(plan []byte, member string) []byte {
	i := bytes.LastIndex(plan, []byte(`"after":{`)) + len(`"after":{`)
	return append(append(append([]byte{}, plan[:i]...), member...), plan[i:]...)
}

// BenchmarkDecodeAuditHostile measures what a pull request's values can make Decode cost:
// a plan the fast path decides, the same plan with a value nested 1,001 deep (beyond the
// fast path's first bound of 1,000) or with the text C:\udata (which the Lexer took for an
// escaped surrogate): the fast path read the whole plan, then encoding/json read it
// again. And encoding/json alone.
func BenchmarkDecodeAuditHostile(b *testing.B) {
	plan := plangen.Generate(2000)
	for _, bc := range []struct {
		name string
		data []byte
		fast bool
	}{
		{"fast", deepAtEnd(plan, 10), true},
		{"deep-1001", deepAtEnd(plan, 1001), true},
		{"text-udata", atEnd(plan, `"note":"C:\\udata",`), true},
		{"std", deepAtEnd(plan, 10), false},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.data)))
			for b.Loop() {
				if _, err := decode(bc.data, bc.fast); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestDecodeFastTakesDeepValues: a value nested as deep as encoding/json reads (10,000
// levels in all) is decided by the fast path. A pull request's jsondecode nesting a value
// 1,001 deep made it give up on the whole plan, after reading all of it: Decode then cost
// the fast pass and encoding/json's (BenchmarkDecodeAuditHostile: 5 times the fast path).
func TestDecodeFastTakesDeepValues(t *testing.T) {
	deep := func(n int) []byte { // 4 levels around the value
		return []byte(`{"format_version":"1.2","resource_changes":[{"change":{"before":` +
			strings.Repeat("[", n) + strings.Repeat("]", n) + `}}]}`)
	}
	for _, n := range []int{1001, 5000, 10000 - 4} {
		if !checkSameDecode(t, deep(n)) {
			t.Errorf("the fast path gave up on a value nested %d deep", n)
		}
	}
	if checkSameDecode(t, deep(10000-3)) {
		t.Error("the fast path took a plan nested deeper than encoding/json reads")
	}
	if !checkSameDecode(t, deepAtEnd(plangen.Generate(3), 1001)) {
		t.Error("the fast path gave up on a generated plan with a value nested 1001 deep")
	}
}
