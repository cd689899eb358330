package astjson

import (
	"encoding/json"
	"strings"
	"testing"
)

var lexerCases = []string{
	``, ` `, `{}`, `[]`, `{"a":1}`, `{"a":1,}`, `[1,]`, `[1 2]`, `{"a" 1}`, `{a:1}`, `{"a":}`,
	`"x"`, `"x`, `"\x"`, `"\u12"`, `"\u12g4"`, `"\ud800"`, "\"\xff\"", "\"a\x01\"", `"\/\b\f\n\r\t\"\\"`,
	`0`, `-0`, `01`, `-`, `1.`, `.5`, `1e`, `1e+`, `1E-7`, `1e400`, `-1.5e+10`, `+1`, `NaN`, `0x1`,
	`true`, `false`, `null`, `tru`, `nul`, `truee`, `nullx`, `[true,false,null]`, `{"a":[{"b":{}}]}`,
	`{"a":1}}`, `[[]`, `[]]`, `{"a":1} {}`, " {\t\"a\" :\n[ 1 , 2 ]\r} ", "{}\v", `{"a":"b"`, `[`,
	strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
	strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
}

// lexValid steps over data as one value and nothing after it.
func lexValid(data []byte, limit int) bool {
	l := NewLexer(data, limit)
	return l.Skip() == nil && l.End() == nil
}

// TestLexerSkipIsJSONValid holds Skip to encoding/json's grammar: a document the plan
// decoder's fast path checks with Skip must be one encoding/json accepts, and the reverse.
func TestLexerSkipIsJSONValid(t *testing.T) {
	for _, in := range lexerCases {
		if got, want := lexValid([]byte(in), maxDepth), json.Valid([]byte(in)); got != want {
			t.Errorf("Skip accepts %.60q: %v, json.Valid: %v", in, got, want)
		}
	}
}

func TestLexerDepthLimit(t *testing.T) {
	in := []byte(strings.Repeat("[", 11) + strings.Repeat("]", 11))
	if lexValid(in, 10) || !lexValid(in, 11) {
		t.Errorf("the depth limit of 10 or 11 is not kept for 11 nested arrays")
	}
}

// TestLexerStringExact: a string String calls exact is decoded as encoding/json decodes it.
func TestLexerStringExact(t *testing.T) {
	for _, tt := range []struct {
		in    string
		exact bool
	}{
		{`"plain"`, true}, {`"a\nb\u00e9\/"`, true}, {`"日本"`, true}, {`"\ud83d\ude00"`, false},
		{`"\ud800"`, false}, {`"\\ud800"`, true}, {"\"\xff\"", false}, {"\"a\xc3\"", false}, {`""`, true},
	} {
		l := NewLexer([]byte(tt.in), maxDepth)
		s, exact, err := l.String()
		if err != nil || exact != tt.exact {
			t.Errorf("String(%q) = exact %v, %v; want exact %v", tt.in, exact, err, tt.exact)
			continue
		}
		var want string
		if err := json.Unmarshal([]byte(tt.in), &want); err != nil {
			t.Fatal(err)
		}
		if exact && string(s) != want {
			t.Errorf("String(%q) = %q, encoding/json %q", tt.in, s, want)
		}
	}
}

func FuzzLexerSkipIsJSONValid(f *testing.F) {
	for _, in := range lexerCases {
		if len(in) < 1000 {
			f.Add([]byte(in))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, want := lexValid(data, maxDepth), json.Valid(data); got != want {
			t.Errorf("Skip accepts %q: %v, json.Valid: %v", data, got, want)
		}
	})
}
