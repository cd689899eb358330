package astjson

import (
	"encoding/binary"
	"unicode/utf8"
)

// Lexer reads JSON text a token at a time, for a decoder that builds values of its own
// types (plan.Decode's typed fast path) with this package's scanner: the same string,
// number and literal scanning as Decode, and a Skip that checks the full JSON grammar of
// what it steps over without building it. A Lexer is not safe for concurrent use.
//
// The caller looks at the next value's first byte with Next, then reads it with the method
// for its kind. Every method that fails leaves the Lexer at the fault; a *SyntaxError says
// where.
type Lexer struct {
	d        decoder
	maxDepth int
}

// NewLexer returns a Lexer at the start of data that refuses containers nested deeper
// than limit (at most this package's own bound).
func NewLexer(data []byte, limit int) *Lexer {
	return &Lexer{d: decoder{data: data}, maxDepth: min(limit, maxDepth)}
}

// Next skips white space and returns the next byte, or 0 at the end of the text.
func (l *Lexer) Next() byte {
	d := &l.d
	d.skipSpace()
	if d.pos >= len(d.data) {
		return 0
	}
	return d.data[d.pos]
}

// ObjectStart reads the '{' at Next, and the '}' too when the object is empty.
func (l *Lexer) ObjectStart() (empty bool, err error) { return l.open('}') }

// ArrayStart reads the '[' at Next, and the ']' too when the array is empty.
func (l *Lexer) ArrayStart() (empty bool, err error) { return l.open(']') }

func (l *Lexer) open(end byte) (bool, error) {
	d := &l.d
	if d.depth >= l.maxDepth {
		return false, d.errorf("nesting deeper than %d", l.maxDepth)
	}
	d.depth++
	d.pos++
	d.skipSpace()
	if d.pos < len(d.data) && d.data[d.pos] == end {
		d.pos++
		d.depth--
		return true, nil
	}
	return false, nil
}

// Key reads an object member's key and the colon after it, leaving the Lexer at the
// member's value. The key is valid until the next string is read; exact is as String's.
func (l *Lexer) Key() (key []byte, exact bool, err error) {
	d := &l.d
	d.skipSpace()
	if d.pos >= len(d.data) || d.data[d.pos] != '"' {
		return nil, false, d.errorf("expected object key")
	}
	if key, exact, err = l.String(); err != nil {
		return nil, false, err
	}
	d.skipSpace()
	if d.pos >= len(d.data) || d.data[d.pos] != ':' {
		return nil, false, d.errorf("expected ':' after object key")
	}
	d.pos++
	return key, exact, nil
}

// MemberEnd reads what follows an object member: a comma, or the closing brace (last).
func (l *Lexer) MemberEnd() (last bool, err error) {
	last, err = l.d.memberEnd()
	if last {
		l.d.depth--
	}
	return last, err
}

// ElementEnd reads what follows an array element: a comma, or the closing bracket (last).
func (l *Lexer) ElementEnd() (last bool, err error) {
	d := &l.d
	d.skipSpace()
	if d.pos >= len(d.data) {
		return false, d.errorf("unterminated array")
	}
	switch d.data[d.pos] {
	case ']':
		d.pos++
		d.depth--
		return true, nil
	case ',':
		d.pos++
		return false, nil
	}
	return false, d.errorf("expected ',' or ']' in array")
}

// String reads the string at Next and returns its decoded bytes, valid until the next
// string is read. exact reports that the text was valid UTF-8 with no escaped UTF-16
// surrogate: decoders differ in how they replace those, so a caller that must decode as
// another decoder does can hand such strings to it.
func (l *Lexer) String() (s []byte, exact bool, err error) {
	d := &l.d
	start := d.pos + 1
	if i := asciiRun(d.data, start); i < len(d.data) && d.data[i] == '"' {
		d.pos = i + 1
		return d.data[start:i], true, nil // plain ASCII: most of a plan's strings
	} else if i = plainRun(d.data, i); i < len(d.data) && d.data[i] == '"' {
		d.pos = i + 1
		s = d.data[start:i]
		return s, utf8.Valid(s), nil
	}
	if s, err = d.str(); err != nil {
		return nil, false, err
	}
	raw := d.data[start : d.pos-1]
	return s, utf8.Valid(raw) && !surrogateEscape(raw), nil
}

// surrogateEscape reports whether raw, a string's text (its escapes well formed), escapes
// a surrogate (\uD800 to \uDFFF). Escapes are read in turn: an escaped backslash followed
// by such text (terraform's JSON for the text \ud800, or a path like C:\udata) escapes none.
func surrogateEscape(raw []byte) bool {
	for i := 0; i+1 < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		i++ // the escaped byte, which is no escape of its own
		if raw[i] == 'u' && i+2 < len(raw) && (raw[i+1]|0x20) == 'd' {
			if c := raw[i+2] | 0x20; c >= '8' && c <= '9' || c >= 'a' && c <= 'f' {
				return true
			}
		}
	}
	return false
}

// Number reads the number at Next and returns its text.
func (l *Lexer) Number() ([]byte, error) { return l.d.numberText() }

// Literal reads the true, false or null at Next and returns its first byte.
func (l *Lexer) Literal() (byte, error) {
	d := &l.d
	if d.pos >= len(d.data) {
		return 0, &SyntaxError{Offset: d.pos, Msg: errEOF.Error()}
	}
	var err error
	c := d.data[d.pos]
	switch c {
	case 't':
		_, err = d.literal("true", nil)
	case 'f':
		_, err = d.literal("false", nil)
	case 'n':
		_, err = d.literal("null", nil)
	default:
		return 0, d.errorf("unexpected %q", c)
	}
	if err != nil {
		return 0, err
	}
	return c, nil
}

// Value steps over the next value, checking it as Skip does, and returns its text.
func (l *Lexer) Value() ([]byte, error) {
	l.d.skipSpace()
	start := l.d.pos
	if err := l.Skip(); err != nil {
		return nil, err
	}
	return l.d.data[start:l.d.pos], nil
}

// Skip steps over the next value without building it, checking that it is JSON by the
// full grammar (unlike the decoder's skipValue, which only finds the value's end).
func (l *Lexer) Skip() error {
	d := &l.d
	switch c := l.Next(); {
	case c == '"':
		return d.skipStr()
	case c == '{':
		return l.skipObject()
	case c == '[':
		return l.skipArray()
	case c == '-' || c >= '0' && c <= '9':
		_, err := d.numberText()
		return err
	}
	_, err := l.Literal()
	return err
}

func (l *Lexer) skipObject() error {
	d := &l.d
	if empty, err := l.ObjectStart(); err != nil || empty {
		return err
	}
	for {
		if d.skipSpace(); d.pos >= len(d.data) || d.data[d.pos] != '"' {
			return d.errorf("expected object key")
		}
		if err := d.skipStr(); err != nil {
			return err
		}
		if d.skipSpace(); d.pos >= len(d.data) || d.data[d.pos] != ':' {
			return d.errorf("expected ':' after object key")
		}
		d.pos++
		if err := l.Skip(); err != nil {
			return err
		}
		if last, err := l.MemberEnd(); err != nil || last {
			return err
		}
	}
}

func (l *Lexer) skipArray() error {
	if empty, err := l.ArrayStart(); err != nil || empty {
		return err
	}
	for {
		if err := l.Skip(); err != nil {
			return err
		}
		if last, err := l.ElementEnd(); err != nil || last {
			return err
		}
	}
}

// End checks that nothing but white space follows the value read.
func (l *Lexer) End() error { return l.d.trailing() }

// asciiRun is plainRun that also stops at the first byte that is not ASCII.
func asciiRun(b []byte, i int) int {
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		q, bs := x^(ones*'"'), x^(ones*'\\')
		if (x|(x-ones*0x20)&^x|(q-ones)&^q|(bs-ones)&^bs)&highs != 0 {
			break
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c == '"' || c == '\\' || c < 0x20 || c >= 0x80 {
			return i
		}
	}
	return i
}
