package astjson

import (
	"github.com/open-policy-agent/opa/v1/ast"
)

// Member is one member of a JSON object read as text: its decoded key and its value's
// JSON text, a slice of the document.
type Member struct {
	Key   string
	Value []byte
}

// Skimmer reads JSON text without building it into values: it steps through the objects
// of a document, and decodes only the parts its caller asks for. Decoding a large plan
// member into OPA values only to look at a few of its parts costs a tree of the member's
// size; skimming it costs a scan. A Skimmer is not safe for concurrent use; its intern
// tables are reused by every call.
type Skimmer struct {
	d       decoder
	members []Member // object members under construction, a stack shared by all levels
	names   map[string]string
}

// NewSkimmer returns a Skimmer.
func NewSkimmer() *Skimmer {
	return &Skimmer{
		d: decoder{
			keys: make(map[string]*ast.Term, 64),
			vals: make(map[string]*ast.Term, 64),
			nums: make(map[string]*ast.Term, 64),
		},
		names: make(map[string]string, 256),
	}
}

// Objects calls fn for every object in the JSON value data, an inner object before the
// object holding it, with the object's members in document order (duplicate keys
// included). The members slice and the values it holds are valid only until fn returns.
// It stops at fn's first error and returns it; malformed JSON gives a *SyntaxError, its
// offset counted from the start of data.
func (s *Skimmer) Objects(data []byte, fn func(members []Member) error) error {
	s.reset(data)
	if err := s.walk(fn); err != nil {
		return err
	}
	return s.d.trailing()
}

func (s *Skimmer) reset(data []byte) {
	s.d.data, s.d.pos, s.d.depth = data, 0, 0
	s.d.skipSpace()
}

func (s *Skimmer) walk(fn func([]Member) error) error {
	d := &s.d
	if d.pos >= len(d.data) {
		return &SyntaxError{Offset: d.pos, Msg: errEOF.Error()}
	}
	switch d.data[d.pos] {
	case '{':
		return s.object(fn)
	case '[':
		return s.array(fn)
	}
	return d.skipValue() // a scalar: strings and literals are checked like decode's
}

func (s *Skimmer) object(fn func([]Member) error) error {
	d := &s.d
	if err := d.enter(); err != nil {
		return err
	}
	d.pos++ // '{'
	d.skipSpace()
	if d.pos < len(d.data) && d.data[d.pos] == '}' {
		d.pos++
		d.depth--
		return fn(nil)
	}
	base := len(s.members)
	for {
		kb, err := d.memberKey()
		if err != nil {
			return err
		}
		key := s.name(kb)
		start := d.pos
		if err := s.walk(fn); err != nil {
			return err
		}
		s.members = append(s.members, Member{Key: key, Value: d.data[start:d.pos]})
		if last, err := d.memberEnd(); err != nil {
			return err
		} else if last {
			break
		}
	}
	err := fn(s.members[base:])
	clear(s.members[base:])
	s.members = s.members[:base]
	d.depth--
	return err
}

func (s *Skimmer) array(fn func([]Member) error) error {
	return s.d.elements(func() error { return s.walk(fn) })
}

// name interns an object key: a document repeats its attribute names thousands of times.
func (s *Skimmer) name(b []byte) string {
	if n, ok := s.names[string(b)]; ok {
		return n
	}
	n := string(b)
	if len(s.names) < internLimit && len(b) <= internMaxLen {
		s.names[n] = n
	}
	return n
}

// Keys calls fn with the key of each member of the JSON object obj, in order (duplicates
// included). It does nothing for a value that is not an object, and stops at the first
// fault: call it on text that Objects accepted.
func (s *Skimmer) Keys(obj []byte, fn func(key string)) {
	s.members1(obj, func(key string, _ []byte) bool { fn(key); return true })
}

// Field is the text of the value of key in the JSON object obj (of its last member of
// that key, the one Decode keeps), or nil when obj is not an object or has no such key.
// Call it on text that Objects accepted.
func (s *Skimmer) Field(obj []byte, key string) []byte {
	var v []byte
	s.members1(obj, func(k string, value []byte) bool {
		if k == key {
			v = value
		}
		return true
	})
	return v
}

// members1 steps through the members of the object obj, skipping their values.
func (s *Skimmer) members1(obj []byte, fn func(key string, value []byte) bool) {
	s.reset(obj)
	d := &s.d
	if d.pos >= len(d.data) || d.data[d.pos] != '{' {
		return
	}
	d.pos++
	d.skipSpace()
	if d.pos < len(d.data) && d.data[d.pos] == '}' {
		return
	}
	for {
		kb, err := d.memberKey()
		if err != nil {
			return
		}
		key := s.name(kb)
		start := d.pos
		if d.skipValue() != nil || !fn(key, d.data[start:d.pos]) {
			return
		}
		if last, err := d.memberEnd(); err != nil || last {
			return
		}
	}
}

// Decode is the package's Decode of data, with the Skimmer's intern tables and blocks of
// terms (a block then lives as long as any value decoded from it: these are small parts,
// read and dropped).
func (s *Skimmer) Decode(data []byte) (ast.Value, error) {
	s.reset(data)
	t, err := s.d.value()
	if err != nil {
		return nil, err
	}
	if err := s.d.trailing(); err != nil {
		return nil, err
	}
	return t.Value, nil
}

// Elements calls fn with the JSON text of each element of the array arr, in order, and
// stops at fn's first error. Text that is not an array gives a *SyntaxError; so does a
// malformed element, its offset counted from the start of arr.
func (s *Skimmer) Elements(arr []byte, fn func(elem []byte) error) error {
	s.reset(arr)
	d := &s.d
	if d.pos >= len(d.data) || d.data[d.pos] != '[' {
		return d.errorf("expected an array")
	}
	err := d.elements(func() error {
		start := d.pos
		if err := d.skipValue(); err != nil {
			return err
		}
		return fn(d.data[start:d.pos])
	})
	if err != nil {
		return err
	}
	return d.trailing()
}

// Fields sets out[i] to the text of the value of keys[i] in the JSON object obj (of its
// last member of that key, as Field), or nil, in one pass over obj. Call it on text that
// Objects accepted.
func (s *Skimmer) Fields(obj []byte, keys []string, out [][]byte) {
	clear(out)
	s.members1(obj, func(k string, value []byte) bool {
		for i, want := range keys {
			if k == want {
				out[i] = value
			}
		}
		return true
	})
}
