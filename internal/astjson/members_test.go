package astjson

import (
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/tfgate/tfgate/internal/plan/plangen"
)

// visitLog records a decoding's visits, keeping the members keep names.
type visitLog struct {
	keep func(string) bool
	seen []string
}

func (l *visitLog) visit(k string, v ast.Value) bool {
	l.seen = append(l.seen, k+"="+v.String())
	return l.keep(k)
}

// onePass is DecodeMembers' contract: decode's visits and result, error included.
func onePass(data []byte, keep func(string) bool) (ast.Value, []string, error) {
	l := &visitLog{keep: keep}
	v, err := decode(data, nil, l.visit)
	return v, l.seen, err
}

// checkSameAsOnePass decodes data with workers goroutines and compares everything with the
// one-pass decoding.
func checkSameAsOnePass(t *testing.T, data []byte, workers int, keep func(string) bool) {
	t.Helper()
	want, wantSeen, wantErr := onePass(data, keep)
	l := &visitLog{keep: keep}
	got, err := decodeMembers(data, workers, l.visit)
	if fmt.Sprint(err) != fmt.Sprint(wantErr) {
		t.Fatalf("%d workers, %.60q: error %v, want %v", workers, data, err, wantErr)
	}
	if !reflect.DeepEqual(l.seen, wantSeen) {
		t.Fatalf("%d workers, %.60q: visited %q, want %q", workers, data, l.seen, wantSeen)
	}
	if (got == nil) != (want == nil) || got != nil && got.Compare(want) != 0 {
		t.Fatalf("%d workers, %.60q: got %v, want %v", workers, data, got, want)
	}
}

var keepAll = func(string) bool { return true }

// memberCases are top-level objects, well formed or not, where the concurrent decoding
// could part from the one-pass one: faults in the scanner's part (keys, separators, the
// end), in a worker's part (inside a value the scanner only skips), after good members,
// duplicates, escaped keys.
var memberCases = []string{
	`{}`, ` {} `, "\ufeff{\"a\":1}", `{"a":1}`, `{"a":1,"b":[1,2],"c":{"d":null}}`,
	`{"a":1,"a":2}`, `{"a":{"x":1},"b\u0041":"s","c":null,"d":[{"e":true}]}`,
	`{"n":-12.5e3,"t":true,"f":false,"s":"x"}`,
	`{"a":1} x`, `{"a":1}}`, `{"a":1,}`, `{"a":1 "b":2}`, `{"a" 1}`, `{"a"`, `{`, `{1:2}`,
	`{"a":[1 2],"b":3}`, `{"a":1,"b":[1 2]}`, `{"a":{"x" 1},"b":2}`, `{"a":[1,],"b":2}`,
	`{"a":"x","b":"\x"}`, `{"a":"\u12"}`, `{"a":01}`, `{"a":1.}`, `{"a":tru}`, `{"a":-}`,
	`{"a":[}`, `{"a":[1,2]`, `{"a":"unterminated`, `{"a":1,"b":{"c":[1,{"d":2}]},"e":[1,2,3`,
	"{\"a\":\"ctl\nchar\"}", `{"a":{"b":{"c":[]}}, "d": 1e}`,
	"{\"a\":\"invalid utf8 \xff\"}",
	`[{"a":1}]`, `"s"`, `12`,
	`{"` + strings.Repeat("k", 60) + `":1,"` + strings.Repeat("k", 60) + `":2}`,
	`{"deep":` + strings.Repeat("[", maxDepth-1) + strings.Repeat("]", maxDepth-1) + `}`,
	`{"deep":` + strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth) + `}`,
	`{"deep":` + strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1) + `}`,
}

func TestDecodeMembersConcurrentlyAsInOnePass(t *testing.T) {
	keeps := map[string]func(string) bool{
		"all":  keepAll,
		"none": func(string) bool { return false },
		"some": func(k string) bool { return k != "a" && k != "c" },
	}
	for _, c := range append(memberCases, decodeCases...) {
		for name, keep := range keeps {
			for _, workers := range []int{2, 3, 8} {
				t.Run(fmt.Sprintf("%.20s/%s/%d", c, name, workers), func(t *testing.T) {
					checkSameAsOnePass(t, []byte(c), workers, keep)
				})
			}
		}
	}
}

func TestDecodeMembersConcurrentlyGeneratedPlan(t *testing.T) {
	plan := plangen.Generate(300)
	checkSameAsOnePass(t, plan, 4, func(k string) bool { return k == "resource_changes" })
	// A fault in the last byte of a large member, after others were decoded.
	bad := append([]byte(nil), plan...)
	i := strings.LastIndex(string(bad), "]")
	bad[i] = '}'
	checkSameAsOnePass(t, bad, 4, keepAll)
}

// TestDecodeMembersStopsEarly checks that a document failing early returns at once and
// leaves nothing blocked: the scanner and workers finish (the race detector and the
// goroutine count would show them otherwise).
func TestDecodeMembersStopsEarly(t *testing.T) {
	before := runtime.NumGoroutine()
	var b strings.Builder
	b.WriteString(`{"a":[1 2]`)
	for i := range 200 {
		fmt.Fprintf(&b, `,"m%d":[1,2,3]`, i)
	}
	b.WriteString("}")
	for range 50 {
		checkSameAsOnePass(t, []byte(b.String()), 2, keepAll)
	}
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines left running, %d before", runtime.NumGoroutine(), before)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func FuzzDecodeMembers(f *testing.F) {
	for _, c := range append(memberCases, decodeCases...) {
		f.Add([]byte(c), uint8(2))
	}
	f.Fuzz(func(t *testing.T, data []byte, workers uint8) {
		checkSameAsOnePass(t, data, 2+int(workers%4), func(k string) bool { return len(k)%2 == 0 })
	})
}

// A nil visit keeps every member, as the one-pass decoder does.
func TestDecodeMembersNilVisit(t *testing.T) {
	doc := []byte(`{"a": {"x": [1, 2]}, "b": "s", "a": 3}`)
	got, err := decodeMembers(doc, 3, nil)
	want, wantErr := decode(doc, nil, nil)
	if err != nil || wantErr != nil || got.Compare(want) != 0 {
		t.Errorf("got %v (%v), want %v (%v)", got, err, want, wantErr)
	}
}
