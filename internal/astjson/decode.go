// Package astjson decodes JSON documents straight into OPA's ast values: the form a plan
// takes once, for the policies that judge it and for the redaction that harvests its
// secrets (internal/plan), so that a large plan is parsed into a tree only once. Its scanner
// also serves the plan's typed decoding, which builds Go values of its own (Lexer).
package astjson

import (
	"bytes"
	"errors"
	"fmt"
	"slices"

	"github.com/open-policy-agent/opa/v1/ast"
)

// Decode converts a JSON document straight into an OPA value.
//
// encoding/json into map[string]any followed by ast.InterfaceToValue builds the document
// twice. This scanner builds ast terms directly, shares the terms of repeated object keys
// and short strings (plans repeat attribute names and action words thousands of times) and
// keeps numbers as their literal text, like OPA does. Duplicate object keys keep the last
// value, like encoding/json. A leading UTF-8 byte order mark is skipped.
func Decode(data []byte) (ast.Value, error) {
	return decode(data, nil, nil)
}

// DecodeKeeping is Decode for a top-level object of which only the members whose key keep
// accepts are wanted: the others are skipped (still checked to be well formed) without
// being built, which saves most of the time and memory when the unwanted ones are large.
func DecodeKeeping(data []byte, keep func(key string) bool) (ast.Value, error) {
	return decode(data, keep, nil)
}

// utf8BOM is the UTF-8 byte order mark: editors on Windows start files with it.
var utf8BOM = []byte("\ufeff")

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
	keep func(key string) bool
	// visit, when set, sees each decoded top-level member and says whether to keep it;
	// the members text accepts it sees as text instead (v nil), never kept.
	visit func(key string, v ast.Value, raw []byte) bool
	text  func(key string) bool
	keys  map[string]*ast.Term
	vals  map[string]*ast.Term
	nums  map[string]*ast.Term
	pairs [][2]*ast.Term // object members under construction, a stack shared by all levels
	elems []*ast.Term    // array elements under construction, likewise
	buf   []byte         // scratch for strings with escapes
	slab  []ast.Term     // terms are carved from blocks: far fewer allocations
	// emptyObj and emptyArr are shared by every {} and [] of the document, as interned
	// strings are (a plan's markers and unknowns are mostly empty: a fifth of its objects,
	// a third of its arrays).
	emptyObj, emptyArr *ast.Term
}

// term returns a new term holding v, from the current block.
func (d *decoder) term(v ast.Value) *ast.Term {
	if len(d.slab) == 0 {
		d.slab = make([]ast.Term, 1024)
	}
	t := &d.slab[0]
	d.slab = d.slab[1:]
	t.Value = v
	return t
}

func decode(data []byte, keep func(string) bool, visit func(string, ast.Value) bool) (ast.Value, error) {
	return decodeText(data, keep, nil, valuesOnly(visit))
}

func decodeText(data []byte, keep, text func(string) bool, visit func(string, ast.Value, []byte) bool) (ast.Value, error) {
	d := &decoder{
		data:  data,
		keep:  keep,
		text:  text,
		visit: visit,
		keys:  make(map[string]*ast.Term, 512),
		vals:  make(map[string]*ast.Term, 1024),
		nums:  make(map[string]*ast.Term, 256),
	}
	if bytes.HasPrefix(data, utf8BOM) {
		d.pos = len(utf8BOM) // skipped, as plan.Decode does
	}
	d.skipSpace()
	t, err := d.value()
	if err != nil {
		return nil, err
	}
	if err := d.trailing(); err != nil {
		return nil, err
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
		return d.term(ast.String(b))
	}
	if t, ok := table[string(b)]; ok { // no allocation for the lookup
		return t
	}
	if len(table) >= internLimit {
		return d.term(ast.String(b))
	}
	// A shared term is allocated on its own: carved from a block, it would keep the whole
	// block alive for as long as any value uses it, long after the rest of the block (a
	// member DecodeMembers dropped) is garbage.
	k := string(b)
	t := ast.NewTerm(ast.String(k))
	table[k] = t
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
		if d.emptyObj == nil {
			d.emptyObj = ast.NewTerm(ast.NewObject()) // on its own, like interned terms
		}
		return d.emptyObj, nil
	}
	for {
		kb, err := d.memberKey()
		if err != nil {
			return nil, err
		}
		var k *ast.Term
		skip := top && d.keep != nil && !d.keep(string(kb))
		asText := top && d.visit != nil && d.text != nil && d.text(string(kb))
		if !skip {
			k = d.intern(d.keys, kb)
		}
		switch {
		case skip:
			if err := d.skipValue(); err != nil {
				return nil, err
			}
		case asText:
			start := d.pos
			if err := d.skipValue(); err != nil {
				return nil, err
			}
			d.visit(string(k.Value.(ast.String)), nil, d.data[start:d.pos])
		default:
			if err := d.memberValue(k, top); err != nil {
				return nil, err
			}
		}
		if last, err := d.memberEnd(); err != nil {
			return nil, err
		} else if last {
			break
		}
	}
	obj := newObject(d.pairs[base:])
	clear(d.pairs[base:])
	d.pairs = d.pairs[:base]
	d.depth--
	return d.term(obj), nil
}

// memberValue decodes the value of the member k onto d.pairs (unless visit drops it, at the
// top level).
func (d *decoder) memberValue(k *ast.Term, top bool) error {
	if top && d.visit != nil {
		// Each member gets blocks of its own: a block is scanned whole by the garbage
		// collector, so one shared with a kept member would keep a dropped member's terms,
		// and everything under them, alive.
		d.slab = nil
	}
	v, err := d.value()
	if err != nil {
		return err
	}
	if !top || d.visit == nil || d.visit(string(k.Value.(ast.String)), v.Value, nil) {
		d.pairs = append(d.pairs, [2]*ast.Term{k, v})
	}
	return nil
}

// memberKey reads an object member's key and the colon after it, leaving d at its value.
// The key may be d's scratch buffer: use it before reading another string.
func (d *decoder) memberKey() ([]byte, error) {
	d.skipSpace()
	if d.pos >= len(d.data) || d.data[d.pos] != '"' {
		return nil, d.errorf("expected object key")
	}
	kb, err := d.str()
	if err != nil {
		return nil, err
	}
	d.skipSpace()
	if d.pos >= len(d.data) || d.data[d.pos] != ':' {
		return nil, d.errorf("expected ':' after object key")
	}
	d.pos++
	d.skipSpace()
	return kb, nil
}

// memberEnd reads what follows an object member's value: a comma, or the closing brace
// (last).
func (d *decoder) memberEnd() (last bool, err error) {
	d.skipSpace()
	if d.pos >= len(d.data) {
		return false, d.errorf("unterminated object")
	}
	c := d.data[d.pos]
	d.pos++
	switch c {
	case '}':
		return true, nil
	case ',':
		return false, nil
	}
	d.pos--
	return false, d.errorf("expected ',' or '}' in object")
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
		if d.emptyArr == nil {
			d.emptyArr = ast.NewTerm(ast.NewArray())
		}
		return d.emptyArr, nil
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
	return d.term(arr), nil
}
