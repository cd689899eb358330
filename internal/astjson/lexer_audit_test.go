package astjson

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// An adversary's audit of the Lexer: the strings a pull-request author puts in a plan
// (through terraform, which writes every string as valid UTF-8 with no escaped surrogate)
// must be read exactly, or the plan decoder's fast path gives up and a plan is decoded at
// encoding/json's speed by anyone who writes `\ud800` in a comment.

// TestLexerStringExactForEscapedBackslash: the text \ud800 written by terraform is `\\ud800`
// in JSON, an escaped backslash and plain letters: no surrogate is escaped.
func TestLexerStringExactForEscapedBackslash(t *testing.T) {
	for _, in := range []string{
		`"\\ud800"`, `"\\uDFFF"`, `"C:\\udata\\dbase"`, `"a\\\\ud800"`, `"\\\"\\ud83d\\ude00"`,
		`"` + strings.Repeat(`\\udc00`, 100) + `"`,
	} {
		l := NewLexer([]byte(in), maxDepth)
		s, exact, err := l.String()
		var want string
		if jerr := json.Unmarshal([]byte(in), &want); err != nil || jerr != nil {
			t.Fatalf("%s: %v %v", in, err, jerr)
		}
		if !exact || string(s) != want {
			t.Errorf("String(%s) = %q exact %v; want %q exact", in, s, exact, want)
		}
	}
}

// TestLexerStringFlagsEverySurrogate: each escaped surrogate, wherever it is, makes a
// string inexact (decoders differ in what they make of it).
func TestLexerStringFlagsEverySurrogate(t *testing.T) {
	for _, in := range []string{
		`"\ud800"`, `"\uDBFF\uDC00"`, `"\\\ud800"`, `"\\\\\udfff"`, `"x\"\udc00"`, `"\/\ud83d\ude00"`,
		`"\u00e9\uDABC"`, "\"\xc3\xa9\\ud800\"",
	} {
		l := NewLexer([]byte(in), maxDepth)
		if _, exact, err := l.String(); err != nil || exact {
			t.Errorf("String(%s): exact %v, err %v; want inexact", in, exact, err)
		}
	}
}

// FuzzLexerStringMatchesJSON holds String to encoding/json: an exact string is encoding/json's
// decoding byte for byte, and valid UTF-8 text with no escaped surrogate is exact.
func FuzzLexerStringMatchesJSON(f *testing.F) {
	for _, s := range []string{`"a"`, `"\\ud800"`, `"\ud800"`, `"\u00e9"`, "\"\xff\"", `"\\\\"`, `"\"\\u"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		l := NewLexer(in, maxDepth)
		if l.Next() != '"' {
			return
		}
		s, exact, err := l.String()
		var want string
		jerr := json.Unmarshal(in[:max(l.d.pos, 0)], &want)
		if err != nil {
			return
		}
		if jerr != nil {
			t.Fatalf("String(%q) accepted what encoding/json refuses: %v", in, jerr)
		}
		if exact && string(s) != want {
			t.Errorf("String(%q) = %q exact; encoding/json %q", in, s, want)
		}
		if !exact && utf8.Valid(in) && !escapesSurrogate(in[:l.d.pos]) {
			t.Errorf("String(%q) inexact for valid UTF-8 with no escaped surrogate", in)
		}
	})
}

// escapesSurrogate reports whether the JSON string text holds an escape \uD800-\uDFFF,
// reading escapes in turn.
func escapesSurrogate(text []byte) bool {
	for i := 0; i < len(text); i++ {
		if text[i] != '\\' || i+1 >= len(text) {
			continue
		}
		if text[i+1] == 'u' && i+6 <= len(text) {
			var r rune
			for _, c := range text[i+2 : i+6] {
				r = r<<4 | rune(strings.IndexByte("0123456789abcdef", c|0x20))
			}
			if r >= 0xd800 && r <= 0xdfff {
				return true
			}
		}
		i++ // the escaped byte
	}
	return false
}
