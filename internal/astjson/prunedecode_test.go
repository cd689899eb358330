package astjson

import (
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/tfgate/tfgate/internal/plan/plangen"
)

// DecodePruned gives what Prune gives of the whole decoded value, for every kind of node:
// kept whole, read for its kind, reached through a wildcard, repeated keys, escapes.
func TestDecodePrunedIsPrune(t *testing.T) {
	docs := []string{
		string(plangen.Generate(30)),
		`{"a":{"b":1,"b":{"c":"x"}},"l":[1,{"c":[true,null]},"s\u00e9"],"e":{},"f":[],"n":-1.5e3,"k\"q":"v"}`,
		`[{"a":1},{"a":[1,2,3]},{"b":2},3,"x",null]`,
		`"plain"`,
	}
	path := func(segs ...string) []Seg {
		out := make([]Seg, len(segs))
		for i, s := range segs {
			out[i] = Seg{Key: s, Any: s == "*"}
		}
		return out
	}
	paths := map[string]func() *Paths{
		"nothing": NoPaths,
		"kinds": func() *Paths {
			p := NoPaths()
			p.Add(path("a"), false)
			p.Add(path("l"), false)
			p.Add(path("n"), false)
			p.Add(path("k\"q"), false)
			p.Add(path("*", "a"), false)
			return p
		},
		"mixed": func() *Paths {
			p := NoPaths()
			p.Add(path("a", "b", "c"), true)
			p.Add(path("l", "*", "c"), true)
			p.Add(path("e"), true)
			p.Add(path("*", "a"), true)
			p.Add(path("resource_changes", "*", "change", "after", "tags"), true)
			p.Add(path("resource_changes", "*", "change", "after", "*"), false)
			p.Add(path("resource_changes", "*", "type"), true)
			return p
		},
		"wildcard": func() *Paths {
			p := NoPaths()
			p.Add(path("*", "*"), false)
			p.Add(path("*", "b"), true)
			return p
		},
	}
	for _, doc := range docs {
		whole, err := Decode([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		for name, mk := range paths {
			got, err := NewSkimmer().DecodePruned([]byte(doc), mk())
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if want := Prune(whole, mk()); ast.Compare(got, want) != 0 {
				t.Errorf("%s of %.60s:\n got %v\nwant %v", name, doc, got, want)
			}
		}
	}
}

// plainRun finds the first quote, backslash or control character as a byte loop does,
// wherever it stands in the eight bytes read at once, beside bytes of every value.
func TestPlainRun(t *testing.T) {
	want := func(b []byte, i int) int {
		for ; i < len(b); i++ {
			if c := b[i]; c == '"' || c == '\\' || c < 0x20 {
				return i
			}
		}
		return i
	}
	for filler := 0x20; filler < 0x100; filler++ {
		if filler == '"' || filler == '\\' {
			continue
		}
		for _, special := range []byte{'"', '\\', 0, 0x1f, 0x0a} {
			for n := 0; n < 20; n++ {
				b := make([]byte, 20)
				for i := range b {
					b[i] = byte(filler)
				}
				b[n] = special
				for start := 0; start <= n; start++ {
					if got := plainRun(b, start); got != want(b, start) {
						t.Fatalf("filler %#x special %#x at %d from %d: got %d", filler, special, n, start, got)
					}
				}
			}
		}
		b := []byte{byte(filler), byte(filler), byte(filler), byte(filler), byte(filler), byte(filler), byte(filler), byte(filler), byte(filler)}
		if got := plainRun(b, 0); got != len(b) {
			t.Fatalf("filler %#x alone: got %d", filler, got)
		}
	}
}
