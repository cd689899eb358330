package astjson

import (
	"github.com/open-policy-agent/opa/v1/ast"
)

// DecodePruned is Prune(Decode(data), p) without building what p does not reach: the
// parts p leaves out are only scanned. Its terms come from the Skimmer's blocks, which
// then hold nothing else when the Skimmer decodes only this way.
func (s *Skimmer) DecodePruned(data []byte, p *Paths) (ast.Value, error) {
	s.reset(data)
	t, err := s.d.pruned(p)
	if err != nil {
		return nil, err
	}
	if err := s.d.trailing(); err != nil {
		return nil, err
	}
	return t.Value, nil
}

// The shared terms of the values of nodes read only for their kind (see kindOf).
var (
	emptyObjectTerm = ast.NewTerm(emptyObject)
	emptyStringTerm = ast.NewTerm(emptyString)
	zeroTerm        = ast.NewTerm(zero)
)

func (d *decoder) pruned(p *Paths) (*ast.Term, error) {
	if p.Whole() {
		return d.value()
	}
	if len(p.keys) == 0 && p.any == nil {
		return d.kindOnly()
	}
	if d.pos < len(d.data) {
		switch d.data[d.pos] {
		case '{':
			return d.prunedObject(p)
		case '[':
			return d.prunedArray(p)
		}
	}
	return d.value() // a scalar is kept as it is
}

// kindOnly steps over a value, giving the value of its kind that kindOf gives.
func (d *decoder) kindOnly() (*ast.Term, error) {
	if d.pos >= len(d.data) {
		return nil, &SyntaxError{Offset: d.pos, Msg: errEOF.Error()}
	}
	switch c := d.data[d.pos]; {
	case c == '{':
		return emptyObjectTerm, d.skipValue()
	case c == '[':
		n, err := d.countElements()
		if err != nil {
			return nil, err
		}
		elems := make([]*ast.Term, n)
		for i := range elems {
			elems[i] = nullTerm
		}
		return d.term(ast.NewArray(elems...)), nil
	case c == '"':
		return emptyStringTerm, d.skipStr()
	case c == '-' || (c >= '0' && c <= '9'):
		if _, err := d.number(); err != nil {
			return nil, err
		}
		return zeroTerm, nil
	}
	return d.value() // true, false, null
}

// countElements steps over an array, counting its elements.
func (d *decoder) countElements() (int, error) {
	n := 0
	err := d.elements(func() error { n++; return d.skipValue() })
	return n, err
}

// elements steps through an array, calling elem at the start of each element (which must
// step over it).
func (d *decoder) elements(elem func() error) error {
	if err := d.enter(); err != nil {
		return err
	}
	d.pos++ // '['
	d.skipSpace()
	if d.pos < len(d.data) && d.data[d.pos] == ']' {
		d.pos++
		d.depth--
		return nil
	}
	for {
		d.skipSpace()
		if err := elem(); err != nil {
			return err
		}
		d.skipSpace()
		if d.pos >= len(d.data) {
			return d.errorf("unterminated array")
		}
		c := d.data[d.pos]
		d.pos++
		if c == ']' {
			d.depth--
			return nil
		}
		if c != ',' {
			d.pos--
			return d.errorf("expected ',' or ']' in array")
		}
	}
}

func (d *decoder) prunedArray(p *Paths) (*ast.Term, error) {
	c, reached := p.Elem()
	var elems []*ast.Term
	err := d.elements(func() error {
		if !reached {
			elems = append(elems, nullTerm)
			return d.skipValue()
		}
		t, err := d.pruned(c)
		elems = append(elems, t)
		return err
	})
	if err != nil {
		return nil, err
	}
	return d.term(ast.NewArray(elems...)), nil
}

func (d *decoder) prunedObject(p *Paths) (*ast.Term, error) {
	if err := d.enter(); err != nil {
		return nil, err
	}
	d.pos++ // '{'
	base := len(d.pairs)
	d.skipSpace()
	if d.pos < len(d.data) && d.data[d.pos] == '}' {
		d.pos++
		d.depth--
		return d.term(ast.NewObject()), nil
	}
	for {
		kb, err := d.memberKey()
		if err != nil {
			return nil, err
		}
		c, ok := p.childBytes(kb)
		if !ok {
			if err := d.skipValue(); err != nil {
				return nil, err
			}
		} else {
			k := d.intern(d.keys, kb)
			v, err := d.pruned(c)
			if err != nil {
				return nil, err
			}
			d.pairs = append(d.pairs, [2]*ast.Term{k, v})
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

// childBytes is Child for a key read from the text (no string is made to look it up).
func (p *Paths) childBytes(key []byte) (*Paths, bool) {
	if p == nil || p.whole {
		return nil, true
	}
	p.freeze()
	if c := p.keys[string(key)]; c != nil {
		return c, true
	}
	return p.any, p.any != nil
}
