package astjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/util"

	"github.com/tfgate/tfgate/internal/plan/plangen"
)

// reference converts JSON the slow, trusted way: encoding/json (with
// json.Number, as OPA does) then ast.InterfaceToValue.
func reference(t testing.TB, data []byte) ast.Value {
	t.Helper()
	var x any
	if err := util.UnmarshalJSON(data, &x); err != nil {
		t.Fatalf("reference decode: %v", err)
	}
	v, err := ast.InterfaceToValue(x)
	if err != nil {
		t.Fatalf("reference convert: %v", err)
	}
	return v
}

var decodeCases = []string{
	`null`, `true`, `false`, `0`, `-0`, `12`, `-12.5`, `1.5e10`, `-12.34E-5`, `1E+2`,
	`""`, `"plain"`,
	`"esc \" \\ \/ \b \f \n \r \t"`,
	`"\u00e9\u4e2d\u0041"`,
	`"emoji \ud83d\ude00 pair"`,
	`"lone \ud800 surrogate"`,
	`"lone low \udc00"`,
	`"héllo wörld 中文"`,
	"\"invalid utf8 \xff\xfe here\"",
	`"` + strings.Repeat("long string beyond the intern limit ", 4) + `"`,
	`[]`, `{}`, `[[]]`, `[{}]`, `{"a":{}}`,
	` { "a" : [ 1 , 2 , { "b" : null } ] , "c" : "d" } `,
	`{"a":1,"a":2}`,
	`{"k00":0,"k01":1,"k02":2,"k03":3,"k04":4,"k05":5,"k06":6,"k07":7,"k08":8,"k09":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k03":"dup"}`,
	`{"` + strings.Repeat("k", 60) + `":1,"` + strings.Repeat("k", 60) + `":2}`,
	`{"same":"v","x":{"same":"v"},"y":["v","v"]}`,
	"\t\n\r [1]\n",
	`{"resource_changes":[{"address":"a.b","change":{"actions":["delete","create"],"before":{"tags":{"owner":"x"}},"after":null}}]}`,
}

func TestDecodeMatchesReference(t *testing.T) {
	for _, c := range decodeCases {
		got, err := Decode([]byte(c))
		if err != nil {
			t.Errorf("Decode(%q): %v", c, err)
			continue
		}
		if want := reference(t, []byte(c)); got.Compare(want) != 0 {
			t.Errorf("Decode(%q) = %v, want %v", c, got, want)
		}
	}
}

// A leading byte order mark is skipped, as plan.Decode skips it.
func TestDecodeSkipsByteOrderMark(t *testing.T) {
	got, err := Decode([]byte("\ufeff{\"format_version\":\"1.2\"}"))
	if err != nil {
		t.Fatal(err)
	}
	if want := reference(t, []byte(`{"format_version":"1.2"}`)); got.Compare(want) != 0 {
		t.Errorf("got %v, want %v", got, want)
	}
	if _, err := Decode([]byte("{}\ufeff")); err == nil {
		t.Error("a byte order mark after the value was accepted")
	}
}

func TestDecodeGeneratedPlan(t *testing.T) {
	plan := plangen.Generate(50)
	got, err := Decode(plan)
	if err != nil {
		t.Fatal(err)
	}
	if want := reference(t, plan); got.Compare(want) != 0 {
		t.Error("decoded plan differs from encoding/json + ast.InterfaceToValue")
	}
}

func TestDecodeErrors(t *testing.T) {
	deep := strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1)
	tests := []struct {
		in     string
		offset int
		msg    string
	}{
		{``, 0, "unexpected end of input"},
		{`   `, 3, "unexpected end of input"},
		{`{`, 1, "expected object key"},
		{`{"a"`, 4, "expected ':'"},
		{`{"a" 1}`, 5, "expected ':'"},
		{`{"a":1,}`, 7, "expected object key"},
		{`{"a":1 "b":2}`, 7, "expected ',' or '}'"},
		{`{1:2}`, 1, "expected object key"},
		{`[1,]`, 3, "unexpected ']'"},
		{`[1 2]`, 3, "expected ',' or ']'"},
		{`[1`, 2, "unterminated array"},
		{`01`, 1, "unexpected '1' after top-level value"},
		{`1.`, 2, "digit expected after '.'"},
		{`1e`, 2, "digit expected in exponent"},
		{`-`, 1, "invalid number"},
		{`+1`, 0, "unexpected '+'"},
		{`"abc`, 4, "unterminated string"},
		{`"a\x"`, 2, `invalid escape \x`},
		{`"\u12"`, 3, `invalid \u escape`},
		{"\"a\nb\"", 2, "control character in string"},
		{`tru`, 0, "invalid literal, want true"},
		{`nul`, 0, "invalid literal, want null"},
		{`{} {}`, 3, "after top-level value"},
		{deep, maxDepth, "nesting deeper than"},
	}
	for _, tt := range tests {
		name := tt.in
		if len(name) > 20 {
			name = name[:20] + "…"
		}
		t.Run(name, func(t *testing.T) {
			if json.Valid([]byte(tt.in)) {
				t.Fatalf("test case %q is valid JSON", tt.in)
			}
			_, err := Decode([]byte(tt.in))
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %v, want a *SyntaxError", err)
			}
			if se.Offset != tt.offset || !strings.Contains(se.Msg, tt.msg) {
				t.Errorf("error at %d %q, want at %d containing %q", se.Offset, se.Msg, tt.offset, tt.msg)
			}
		})
	}
}

func TestDecodeSkipsUnreadKeys(t *testing.T) {
	doc := `{"prior_state": {"a": ["x", {"b": "}]\"{["}], "n": -1.5e3, "t": true}, "resource_changes": [1], "timestamp": "t", "z": null, "planned_values": [[[]]]}`
	got, err := DecodeKeeping([]byte(doc), func(k string) bool { return k == "resource_changes" || k == "z" })
	if err != nil {
		t.Fatal(err)
	}
	if want := ast.MustParseTerm(`{"resource_changes": [1], "z": null}`).Value; got.Compare(want) != 0 {
		t.Errorf("got %v, want %v", got, want)
	}
	for _, bad := range []string{
		`{"skip": [1, 2}, "keep": 1}`,
		`{"skip": {"a": "unterminated}, "keep": 1}`,
		`{"skip": [`,
		`{"skip": tru, "keep": 1}`,
	} {
		if _, err := DecodeKeeping([]byte(bad), func(k string) bool { return k == "keep" }); err == nil {
			t.Errorf("DecodeKeeping(%q) skipped malformed JSON without an error", bad)
		}
	}
}

func FuzzDecode(f *testing.F) {
	for _, c := range decodeCases {
		f.Add([]byte(c))
	}
	f.Add([]byte(`{"a":[1,2,{"b":"\u0000"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := Decode(data)
		if !json.Valid(data) {
			if err == nil {
				t.Fatalf("Decode accepted invalid JSON %q", data)
			}
			return
		}
		if err != nil {
			if bytes.Count(data, []byte("[")) > maxDepth || bytes.Count(data, []byte("{")) > maxDepth {
				return
			}
			t.Fatalf("Decode(%q): %v", data, err)
		}
		if want := reference(t, data); got.Compare(want) != 0 {
			t.Fatalf("Decode(%q) = %v, want %v", data, got, want)
		}
	})
}

func TestDecodeMembers(t *testing.T) {
	doc := `{"a": {"x": [1, 2]}, "b\u0041": "s", "c": null, "d": [{"e": true}]}`
	var seen []string
	got, err := DecodeMembers([]byte(doc), func(k string, v ast.Value) bool {
		seen = append(seen, k+"="+v.String())
		return k != "a" && k != "c"
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := ast.MustParseTerm(`{"bA": "s", "d": [{"e": true}]}`).Value; got.Compare(want) != 0 {
		t.Errorf("got %v, want %v", got, want)
	}
	if want := []string{`a={"x": [1, 2]}`, `bA="s"`, `c=null`, `d=[{"e": true}]`}; !slices.Equal(seen, want) {
		t.Errorf("visited %q, want %q", seen, want)
	}
	// Nested objects are not visited; a top level that is no object is returned as is.
	v, err := DecodeMembers([]byte(`[{"a": 1}]`), func(string, ast.Value) bool { t.Error("visited"); return true })
	if err != nil || v.Compare(ast.MustParseTerm(`[{"a": 1}]`).Value) != 0 {
		t.Errorf("array: %v %v", v, err)
	}
	if _, err := DecodeMembers([]byte(`{"a": 1, "b": [}`), func(string, ast.Value) bool { return false }); err == nil {
		t.Error("malformed member accepted")
	}
}
