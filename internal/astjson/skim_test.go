package astjson

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/tfgate/tfgate/internal/plan/plangen"
)

// textLog records a decoding's visits, values and texts alike.
type textLog struct{ seen []string }

func (l *textLog) visit(k string, v ast.Value, raw []byte) bool {
	if v == nil {
		l.seen = append(l.seen, k+" text "+string(raw))
		return true // ignored: a member seen as text is never kept
	}
	l.seen = append(l.seen, k+"="+v.String())
	return k != "drop"
}

// Members wanted as text are visited with their exact text, in document order, by the
// concurrent decoding as by the one-pass one, and never kept; faults inside them are the
// one-pass decoding's.
func TestDecodeMembersText(t *testing.T) {
	text := func(k string) bool { return strings.HasPrefix(k, "t") }
	docs := append([]string{
		`{"a":1,"t1":{"x":[1,2]},"drop":2,"t2":"s","b":{"c":null},"t1":[ ]}`,
		`{"t":{"x":tru}}`, `{"t":{"x":1}`, `{"a":1,"t":[1,}`, "\ufeff{\"t\":{}}",
		string(plangen.Generate(30)),
	}, memberCases...)
	for _, doc := range docs {
		one := &textLog{}
		want, wantErr := decodeText([]byte(doc), nil, text, one.visit)
		for _, workers := range []int{1, 2, 4} {
			l := &textLog{}
			got, err := decodeMembersText([]byte(doc), workers, text, l.visit)
			if fmt.Sprint(err) != fmt.Sprint(wantErr) {
				t.Fatalf("%d workers, %.60q: error %v, want %v", workers, doc, err, wantErr)
			}
			if err == nil && (!reflect.DeepEqual(l.seen, one.seen) || got.Compare(want) != 0) {
				t.Fatalf("%d workers, %.60q: visited %q, want %q; got %v, want %v", workers, doc, l.seen, one.seen, got, want)
			}
		}
	}
	l := &textLog{}
	got, err := DecodeMembersText([]byte(`{"a":1,"t":{ "k" : [true] },"drop":0}`), text, l.visit)
	if err != nil || got.Compare(ast.MustParseTerm(`{"a":1}`).Value) != 0 || l.seen[1] != `t text { "k" : [true] }` {
		t.Errorf("got %v, %v, visits %q", got, err, l.seen)
	}
}

// The skimmer sees every object, inner ones first, with its members' keys and texts; its
// parts are those the decoder would build.
func TestSkimmer(t *testing.T) {
	s := NewSkimmer()
	var seen []string
	doc := `{"a":{"b":[{"c":1},{}]},"d\u0065":"x","a":2}`
	err := s.Objects([]byte(doc), func(ms []Member) error {
		var parts []string
		for _, m := range ms {
			parts = append(parts, m.Key+"="+string(m.Value))
		}
		seen = append(seen, strings.Join(parts, ","))
		return nil
	})
	want := []string{"c=1", "", `b=[{"c":1},{}]`, `a={"b":[{"c":1},{}]},de="x",a=2`}
	if err != nil || !reflect.DeepEqual(seen, want) {
		t.Errorf("Objects: %q, %v; want %q", seen, err, want)
	}
	if f := s.Field([]byte(doc), "a"); string(f) != "2" {
		t.Errorf("Field a = %q, want the last member's 2", f)
	}
	if f := s.Field([]byte(`[1]`), "a"); f != nil {
		t.Errorf("Field of an array = %q", f)
	}
	var keys []string
	s.Keys([]byte(doc), func(k string) { keys = append(keys, k) })
	if !reflect.DeepEqual(keys, []string{"a", "de", "a"}) {
		t.Errorf("Keys = %q", keys)
	}
	for _, bad := range []string{`{"a":[1,}`, `{"a" 1}`, `{"a":"\x"}`, `[1] 2`, ``, `{"a":{}`} {
		if err := s.Objects([]byte(bad), func([]Member) error { return nil }); err == nil {
			t.Errorf("Objects(%q) accepted", bad)
		}
	}
	data := plangen.Generate(20)
	whole, _ := Decode(data)
	for range 2 { // the tables and blocks of one decoding serve the next
		v, err := s.Decode(data)
		if err != nil || v.Compare(whole) != 0 {
			t.Fatalf("Skimmer.Decode differs from Decode (%v)", err)
		}
	}
}

// Skipping a string ends where reading it ends, with the same error at the same offset.
func TestSkipStrAsStr(t *testing.T) {
	for _, s := range []string{`"abc"`, `"a\"b\\c\/\b\f\n\r\t"`, `"\u00e9\ud83d\ude00"`, `"\ud83dx"`, `"\ud83d\u12"`,
		`"\u12"`, `"\x"`, `"abc`, `"ab\`, "\"a\x01b\"", "\"\xff\xfe\"", `""`, `"\ud83d\uZZZZ"`, `"a\u0000"`} {
		for _, tail := range []string{"", `,"x"`} {
			data := []byte(s + tail)
			r := &decoder{data: data}
			_, rerr := r.str()
			k := &decoder{data: data}
			kerr := k.skipStr()
			if fmt.Sprint(rerr) != fmt.Sprint(kerr) || (rerr == nil && r.pos != k.pos) {
				t.Errorf("%q: str ends at %d (%v), skipStr at %d (%v)", data, r.pos, rerr, k.pos, kerr)
			}
		}
	}
}
