package policy

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/open-policy-agent/opa/v1/ast"
)

// DecodeJSON converts a JSON document straight into an OPA value.
//
// Converting a plan into OPA's value form dominates the cost of evaluating it:
// encoding/json into map[string]any followed by ast.InterfaceToValue builds the
// document twice. This scanner builds ast terms directly, shares the terms of
// repeated object keys and short strings (plans repeat attribute names and
// action words thousands of times) and keeps numbers as their literal text,
// like OPA does. Duplicate object keys keep the last value, like encoding/json.
func DecodeJSON(data []byte) (ast.Value, error) {
	return decodeJSON(data, nil)
}

// maxDepth bounds nesting so hostile input cannot exhaust the goroutine stack.
const maxDepth = 10000

// internLimit bounds the intern tables so unique values cannot grow them
// without limit; past it, terms are simply allocated.
const (
	internLimit  = 1 << 16
	internMaxLen = 48
)

type decoder struct {
	data  []byte
	pos   int
	depth int
	// keep selects the top-level object members to decode; nil keeps all.
	keep  func(key string) bool
	keys  map[string]*ast.Term
	vals  map[string]*ast.Term
	nums  map[string]*ast.Term
	pairs [][2]*ast.Term // object members under construction, a stack shared by all levels
	elems []*ast.Term    // array elements under construction, likewise
	buf   []byte         // scratch for strings with escapes
}

func decodeJSON(data []byte, keep func(string) bool) (ast.Value, error) {
	d := &decoder{
		data: data,
		keep: keep,
		keys: make(map[string]*ast.Term, 512),
		vals: make(map[string]*ast.Term, 1024),
		nums: make(map[string]*ast.Term, 256),
	}
	d.skipSpace()
	t, err := d.value()
	if err != nil {
		return nil, err
	}
	d.skipSpace()
	if d.pos < len(d.data) {
		return nil, d.errorf("unexpected %q after top-level value", d.data[d.pos])
	}
	return t.Value, nil
}

// SyntaxError reports malformed JSON with its byte offset.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at offset %d: %s", e.Offset, e.Msg)
}

func (d *decoder) errorf(format string, args ...any) error {
	return &SyntaxError{Offset: d.pos, Msg: fmt.Sprintf(format, args...)}
}

var errEOF = errors.New("unexpected end of input")

func (d *decoder) skipSpace() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *decoder) value() (*ast.Term, error) {
	if d.pos >= len(d.data) {
		return nil, &SyntaxError{Offset: d.pos, Msg: errEOF.Error()}
	}
	switch c := d.data[d.pos]; {
	case c == '{':
		return d.object()
	case c == '[':
		return d.array()
	case c == '"':
		s, err := d.str()
		if err != nil {
			return nil, err
		}
		return d.intern(d.vals, s), nil
	case c == '-' || (c >= '0' && c <= '9'):
		return d.number()
	case c == 't':
		return d.literal("true", ast.InternedBooleanTrue)
	case c == 'f':
		return d.literal("false", ast.InternedBooleanFalse)
	case c == 'n':
		return d.literal("null", ast.InternedNullTerm)
	default:
		return nil, d.errorf("unexpected %q", c)
	}
}

func (d *decoder) literal(word string, t *ast.Term) (*ast.Term, error) {
	if len(d.data)-d.pos < len(word) || string(d.data[d.pos:d.pos+len(word)]) != word {
		return nil, d.errorf("invalid literal, want %s", word)
	}
	d.pos += len(word)
	return t, nil
}

// intern returns a shared term for short strings. The terms are never
// modified by OPA, so sharing them between objects is safe.
func (d *decoder) intern(table map[string]*ast.Term, b []byte) *ast.Term {
	if len(b) > internMaxLen {
		return ast.StringTerm(string(b))
	}
	if t, ok := table[string(b)]; ok { // no allocation for the lookup
		return t
	}
	t := ast.StringTerm(string(b))
	if len(table) < internLimit {
		table[string(b)] = t
	}
	return t
}

func (d *decoder) enter() error {
	d.depth++
	if d.depth > maxDepth {
		return d.errorf("nesting deeper than %d", maxDepth)
	}
	return nil
}

func (d *decoder) object() (*ast.Term, error) {
	if err := d.enter(); err != nil {
		return nil, err
	}
	top := d.depth == 1
	d.pos++ // '{'
	base := len(d.pairs)
	d.skipSpace()
	if d.pos < len(d.data) && d.data[d.pos] == '}' {
		d.pos++
		d.depth--
		return ast.NewTerm(ast.NewObject()), nil
	}
	for {
		d.skipSpace()
		if d.pos >= len(d.data) || d.data[d.pos] != '"' {
			return nil, d.errorf("expected object key")
		}
		kb, err := d.str()
		if err != nil {
			return nil, err
		}
		var k *ast.Term
		skip := top && d.keep != nil && !d.keep(string(kb))
		if !skip {
			k = d.intern(d.keys, kb)
		}
		d.skipSpace()
		if d.pos >= len(d.data) || d.data[d.pos] != ':' {
			return nil, d.errorf("expected ':' after object key")
		}
		d.pos++
		d.skipSpace()
		if skip {
			if err := d.skipValue(); err != nil {
				return nil, err
			}
		} else {
			v, err := d.value()
			if err != nil {
				return nil, err
			}
			d.pairs = append(d.pairs, [2]*ast.Term{k, v})
		}
		d.skipSpace()
		if d.pos >= len(d.data) {
			return nil, d.errorf("unterminated object")
		}
		c := d.data[d.pos]
		d.pos++
		if c == '}' {
			break
		}
		if c != ',' {
			d.pos--
			return nil, d.errorf("expected ',' or '}' in object")
		}
	}
	obj := newObject(d.pairs[base:])
	clear(d.pairs[base:])
	d.pairs = d.pairs[:base]
	d.depth--
	return ast.NewTerm(obj), nil
}

// newObject builds an object in one allocation block. ast.NewObject does not
// look for duplicate keys, so those (rare, but legal JSON) go through Insert,
// which keeps the last value. Keys are interned, so duplicates of short keys
// share a pointer; longer keys are compared by value.
func newObject(pairs [][2]*ast.Term) ast.Object {
	if hasDuplicateKey(pairs) {
		obj := ast.NewObjectWithCapacity(len(pairs))
		for _, p := range pairs {
			obj.Insert(p[0], p[1])
		}
		return obj
	}
	return ast.NewObject(pairs...)
}

func hasDuplicateKey(pairs [][2]*ast.Term) bool {
	if len(pairs) < 2 {
		return false
	}
	if len(pairs) <= 16 {
		for i := 1; i < len(pairs); i++ {
			for j := 0; j < i; j++ {
				if pairs[i][0] == pairs[j][0] || pairs[i][0].Value.(ast.String) == pairs[j][0].Value.(ast.String) {
					return true
				}
			}
		}
		return false
	}
	seen := make(map[ast.String]struct{}, len(pairs))
	for _, p := range pairs {
		k := p[0].Value.(ast.String)
		if _, ok := seen[k]; ok {
			return true
		}
		seen[k] = struct{}{}
	}
	return false
}

func (d *decoder) array() (*ast.Term, error) {
	if err := d.enter(); err != nil {
		return nil, err
	}
	d.pos++ // '['
	base := len(d.elems)
	d.skipSpace()
	if d.pos < len(d.data) && d.data[d.pos] == ']' {
		d.pos++
		d.depth--
		return ast.NewTerm(ast.NewArray()), nil
	}
	for {
		d.skipSpace()
		v, err := d.value()
		if err != nil {
			return nil, err
		}
		d.elems = append(d.elems, v)
		d.skipSpace()
		if d.pos >= len(d.data) {
			return nil, d.errorf("unterminated array")
		}
		c := d.data[d.pos]
		d.pos++
		if c == ']' {
			break
		}
		if c != ',' {
			d.pos--
			return nil, d.errorf("expected ',' or ']' in array")
		}
	}
	arr := ast.NewArray(slices.Clone(d.elems[base:])...)
	clear(d.elems[base:])
	d.elems = d.elems[:base]
	d.depth--
	return ast.NewTerm(arr), nil
}

// str scans a string starting at its opening quote and returns its decoded
// bytes. The slice aliases the input or the scratch buffer: copy it to keep it.
func (d *decoder) str() ([]byte, error) {
	start := d.pos + 1
	i := start
	for i < len(d.data) {
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
	b := d.data[start:i]
	if t, ok := d.nums[string(b)]; ok {
		return t, nil
	}
	t := ast.NumberTerm(json.Number(b))
	if len(b) <= 8 && len(d.nums) < internLimit {
		d.nums[string(b)] = t
	}
	return t, nil
}

// skipValue steps over one value without building it, still checking that
// it is well formed enough to find its end.
func (d *decoder) skipValue() error {
	if d.pos >= len(d.data) {
		return &SyntaxError{Offset: d.pos, Msg: errEOF.Error()}
	}
	switch c := d.data[d.pos]; c {
	case '"':
		_, err := d.str()
		return err
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
			if _, err := d.str(); err != nil {
				return err
			}
		default:
			d.pos++
		}
	}
	return d.errorf("unterminated value")
}
