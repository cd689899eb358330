package astjson

// The lexical half of the JSON decoder: strings, numbers, skipping values.

import (
	"encoding/binary"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/open-policy-agent/opa/v1/ast"
)

// str scans a string starting at its opening quote and returns its decoded
// bytes. The slice aliases the input or the scratch buffer: copy it to keep it.
func (d *decoder) str() ([]byte, error) {
	start := d.pos + 1
	i := start
	for i < len(d.data) {
		if i = plainRun(d.data, i); i >= len(d.data) {
			break
		}
		c := d.data[i]
		if c == '"' {
			b := d.data[start:i]
			d.pos = i + 1
			if !utf8.Valid(b) {
				return []byte(string([]rune(string(b)))), nil // invalid bytes become U+FFFD, like encoding/json
			}
			return b, nil
		}
		if c == '\\' {
			return d.strEscaped(start, i)
		}
		if c < 0x20 {
			d.pos = i
			return nil, d.errorf("control character in string")
		}
		i++
	}
	d.pos = i
	return nil, d.errorf("unterminated string")
}

func (d *decoder) strEscaped(start, i int) ([]byte, error) {
	d.buf = append(d.buf[:0], d.data[start:i]...)
	for i < len(d.data) {
		c := d.data[i]
		switch {
		case c == '"':
			d.pos = i + 1
			if !utf8.Valid(d.buf) {
				return []byte(string([]rune(string(d.buf)))), nil
			}
			return d.buf, nil
		case c < 0x20:
			d.pos = i
			return nil, d.errorf("control character in string")
		case c != '\\':
			d.buf = append(d.buf, c)
			i++
			continue
		}
		if i+1 >= len(d.data) {
			break
		}
		e := d.data[i+1]
		i += 2
		switch e {
		case '"', '\\', '/':
			d.buf = append(d.buf, e)
		case 'b':
			d.buf = append(d.buf, '\b')
		case 'f':
			d.buf = append(d.buf, '\f')
		case 'n':
			d.buf = append(d.buf, '\n')
		case 'r':
			d.buf = append(d.buf, '\r')
		case 't':
			d.buf = append(d.buf, '\t')
		case 'u':
			r, n, ok := d.unicodeEscape(i)
			if !ok {
				d.pos = i
				return nil, d.errorf("invalid \\u escape")
			}
			i += n
			d.buf = utf8.AppendRune(d.buf, r)
		default:
			d.pos = i - 2
			return nil, d.errorf("invalid escape \\%c", e)
		}
	}
	d.pos = i
	return nil, d.errorf("unterminated string")
}

// unicodeEscape decodes the 4 hex digits at i (after `\u`), joining a UTF-16
// surrogate pair when one follows. Lone surrogates become U+FFFD.
func (d *decoder) unicodeEscape(i int) (rune, int, bool) {
	r, ok := hex4(d.data, i)
	if !ok {
		return 0, 0, false
	}
	if !utf16.IsSurrogate(r) {
		return r, 4, true
	}
	if i+10 <= len(d.data) && d.data[i+4] == '\\' && d.data[i+5] == 'u' {
		if r2, ok := hex4(d.data, i+6); ok {
			if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
				return dec, 10, true
			}
		}
	}
	return utf8.RuneError, 4, true
}

func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

func (d *decoder) number() (*ast.Term, error) {
	b, err := d.numberText()
	if err != nil {
		return nil, err
	}
	if t, ok := d.nums[string(b)]; ok {
		return t, nil
	}
	if len(b) > 8 || len(d.nums) >= internLimit {
		return d.term(ast.Number(b)), nil
	}
	t := ast.NewTerm(ast.Number(b)) // on its own, as intern explains
	d.nums[string(b)] = t
	return t, nil
}

// numberText steps over the number at d.pos, checking JSON's grammar for numbers, and
// returns its text.
func (d *decoder) numberText() ([]byte, error) {
	start := d.pos
	i := d.pos
	if d.data[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(d.data) && d.data[i] >= '0' && d.data[i] <= '9' {
			i++
			n++
		}
		return n
	}
	switch {
	case i < len(d.data) && d.data[i] == '0':
		i++
	case digits() == 0:
		d.pos = i
		return nil, d.errorf("invalid number")
	}
	if i < len(d.data) && d.data[i] == '.' {
		i++
		if digits() == 0 {
			d.pos = i
			return nil, d.errorf("invalid number: digit expected after '.'")
		}
	}
	if i < len(d.data) && (d.data[i] == 'e' || d.data[i] == 'E') {
		i++
		if i < len(d.data) && (d.data[i] == '+' || d.data[i] == '-') {
			i++
		}
		if digits() == 0 {
			d.pos = i
			return nil, d.errorf("invalid number: digit expected in exponent")
		}
	}
	d.pos = i
	return d.data[start:i], nil
}

// skipValue steps over one value without building it, still checking that
// it is well formed enough to find its end.
func (d *decoder) skipValue() error {
	if d.pos >= len(d.data) {
		return &SyntaxError{Offset: d.pos, Msg: errEOF.Error()}
	}
	switch c := d.data[d.pos]; c {
	case '"':
		return d.skipStr()
	case '{', '[':
		return d.skipContainer()
	default:
		_, err := d.value() // scalars are cheap and interned
		return err
	}
}

// skipContainer skips a balanced object or array, validating strings and
// bracket nesting but not the full grammar of the skipped part.
func (d *decoder) skipContainer() error {
	var stack []byte
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		switch c {
		case '{', '[':
			if len(stack) >= maxDepth {
				return d.errorf("nesting deeper than %d", maxDepth)
			}
			stack = append(stack, c)
			d.pos++
		case '}', ']':
			if len(stack) == 0 || (c == '}') != (stack[len(stack)-1] == '{') {
				return d.errorf("unbalanced %q", c)
			}
			stack = stack[:len(stack)-1]
			d.pos++
			if len(stack) == 0 {
				return nil
			}
		case '"':
			if err := d.skipStr(); err != nil {
				return err
			}
		default:
			d.pos++
		}
	}
	return d.errorf("unterminated value")
}

// skipStr steps over a string as str reads it, with str's errors at str's offsets, without
// decoding it: a skipped string is never used, so its bytes need not be valid UTF-8 (str
// would replace what is not), nor its escapes be decoded.
func (d *decoder) skipStr() error {
	i := d.pos + 1
	for i < len(d.data) {
		i = plainRun(d.data, i)
		if i >= len(d.data) {
			break
		}
		switch c := d.data[i]; {
		case c == '"':
			d.pos = i + 1
			return nil
		case c < 0x20:
			d.pos = i
			return d.errorf("control character in string")
		case c != '\\':
			i++
			continue
		}
		if i+1 >= len(d.data) {
			break
		}
		e := d.data[i+1]
		i += 2
		switch e {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		case 'u':
			if _, _, ok := d.unicodeEscape(i); !ok {
				d.pos = i
				return d.errorf("invalid \\u escape")
			}
			i += 4 // a surrogate pair's second half is an escape of its own
		default:
			d.pos = i - 2
			return d.errorf("invalid escape \\%c", e)
		}
	}
	d.pos = i
	return d.errorf("unterminated string")
}

// The bytes of 8 that plainRun tests at once.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// plainRun is the offset of the first byte from i on that is a quote, a backslash or a
// control character (len(b) if none), eight bytes at a time: most of a plan's string
// bytes are plain. The tests are exact for "some byte of the eight": x has a byte below
// n (n <= 0x80) when (x - n*ones) &^ x has a high bit set, and a byte equal to c when
// x^c*ones has a byte below 1.
func plainRun(b []byte, i int) int {
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		q, bs := x^(ones*'"'), x^(ones*'\\')
		if ((x-ones*0x20)&^x|(q-ones)&^q|(bs-ones)&^bs)&highs != 0 {
			break // the special byte is among these eight
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c == '"' || c == '\\' || c < 0x20 {
			return i
		}
	}
	return i
}
