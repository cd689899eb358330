package astjson

import (
	"sort"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
)

// Paths is the part of a JSON document a reader needs: a tree of the members it can reach,
// each marked whole (everything under it) or kept for what is under it on the tree. A
// value pruned to Paths (Prune) keeps, at every node the tree reaches, the node's kind:
// an object keeps the members the tree names (all of them under a wildcard), an array
// keeps its length (elements nobody reads become null), a scalar is kept as it is. So a
// reader whose every read is on the tree sees the same answers in the pruned value as in
// the whole one: the same members defined, of the same kinds, with the same values where
// it reads values.
//
// The nil *Paths is the whole document. A Paths is built with Add and then frozen by the
// first Prune, Child or Elem (the wildcard's reads are folded into the named members').
type Paths struct {
	whole  bool
	keys   map[string]*Paths
	any    *Paths // every member or element
	frozen bool
}

// Seg is one step of a path: a member's key, or any member or element (Any).
type Seg struct {
	Key string
	Any bool
}

// NoPaths is a Paths reaching nothing: a document pruned to it is an empty object.
func NoPaths() *Paths { return &Paths{} }

// Add marks the node at path as read, whole when whole is set (its value is read) and
// otherwise only as there, of its kind (it is looked up, or its type is asked).
func (p *Paths) Add(path []Seg, whole bool) {
	if p.frozen {
		panic("astjson: Add on a frozen Paths")
	}
	n := p
	for _, s := range path {
		if n.whole {
			return
		}
		next := &n.any
		if !s.Any {
			if n.keys == nil {
				n.keys = map[string]*Paths{}
			}
			c := n.keys[s.Key]
			if c == nil {
				c = &Paths{}
				n.keys[s.Key] = c
			}
			n = c
			continue
		}
		if *next == nil {
			*next = &Paths{}
		}
		n = *next
	}
	if whole {
		n.whole, n.keys, n.any = true, nil, nil
	}
}

// Union is a Paths reaching what p or q reaches; nil (the whole document) when either is.
func Union(p, q *Paths) *Paths {
	if p == nil || q == nil {
		return nil
	}
	out := &Paths{}
	out.merge(p)
	out.merge(q)
	return out.Freeze()
}

func (p *Paths) merge(q *Paths) {
	if p.whole || q == nil {
		return
	}
	if q.whole {
		p.whole, p.keys, p.any = true, nil, nil
		return
	}
	for k, c := range q.keys {
		if p.keys == nil {
			p.keys = map[string]*Paths{}
		}
		if p.keys[k] == nil {
			p.keys[k] = &Paths{}
		}
		p.keys[k].merge(c)
	}
	if q.any != nil {
		if p.any == nil {
			p.any = &Paths{}
		}
		p.any.merge(q.any)
	}
}

// Freeze folds the wildcard's reads into every named member's, below p, and makes p read
// only: a Paths shared between goroutines must be frozen first (Child, Elem and Prune
// freeze an unfrozen one as they go). Add panics on a frozen Paths.
func (p *Paths) Freeze() *Paths {
	p.freeze()
	return p
}

func (p *Paths) freeze() {
	if p == nil || p.frozen {
		return
	}
	if p.any != nil {
		p.any.freeze()
		for _, c := range p.keys {
			c.merge(p.any)
		}
	}
	for _, c := range p.keys {
		c.freeze()
	}
	p.frozen = true
}

// Has reports whether p reaches the member key of the top-level object.
func (p *Paths) Has(key string) bool {
	_, ok := p.Child(key)
	return ok
}

// Child is what p reaches under the member key (nil for the whole of it), and whether p
// reaches that member at all.
func (p *Paths) Child(key string) (*Paths, bool) {
	if p == nil || p.whole {
		return nil, true
	}
	p.freeze()
	if c := p.keys[key]; c != nil {
		return c, true
	}
	return p.any, p.any != nil
}

// Whole reports whether p is the whole of its node.
func (p *Paths) Whole() bool { return p == nil || p.whole }

// Elem is what p reaches in every element of an array, and whether it reaches them at
// all (an unread element is pruned to null).
func (p *Paths) Elem() (*Paths, bool) {
	if p == nil || p.whole {
		return nil, true
	}
	p.freeze()
	if p.any != nil {
		return p.any, true
	}
	// A numbered element is read as any element (see Add's callers); keys on an array
	// reach nothing.
	return nil, false
}

// String lists the paths p reaches, one per line ("resource_changes[*].type"), for tests
// and for `tfgate policy inputs`-like diagnostics; a whole node ends without a suffix, a
// node read only for its kind ends in "?".
func (p *Paths) String() string {
	if p.Whole() {
		return "(whole)\n"
	}
	var lines []string
	p.lines("", &lines)
	sort.Strings(lines)
	return strings.Join(lines, "\n") + "\n"
}

func (p *Paths) lines(prefix string, out *[]string) {
	switch {
	case p.whole:
		*out = append(*out, prefix)
		return
	case len(p.keys) == 0 && p.any == nil:
		*out = append(*out, prefix+"?")
		return
	}
	for k, c := range p.keys {
		sep := "."
		if prefix == "" {
			sep = ""
		}
		c.lines(prefix+sep+k, out)
	}
	if p.any != nil {
		p.any.lines(prefix+"[*]", out)
	}
}

// Prune is v with only what p reaches (see Paths). It never changes v. Below the top, it
// copies what it keeps, terms included, so that the pruned value holds nothing of v's
// terms (a decoder's terms are carved from blocks: one kept term would keep its block).
func Prune(v ast.Value, p *Paths) ast.Value {
	if p.Whole() {
		return v
	}
	return prune(v, p)
}

func prune(v ast.Value, p *Paths) ast.Value {
	if p.Whole() {
		return copyValue(v)
	}
	if len(p.keys) == 0 && p.any == nil {
		return kindOf(v)
	}
	switch t := v.(type) {
	case ast.Object:
		pairs := make([][2]*ast.Term, 0, len(p.keys)+1)
		t.Foreach(func(k, e *ast.Term) {
			s, ok := k.Value.(ast.String)
			if !ok {
				return // not from JSON: nothing reads it by a key
			}
			if c, ok := p.Child(string(s)); ok {
				pairs = append(pairs, [2]*ast.Term{ast.NewTerm(s), ast.NewTerm(prune(e.Value, c))})
			}
		})
		return ast.NewObject(pairs...)
	case *ast.Array:
		c, reached := p.Elem()
		elems := make([]*ast.Term, t.Len())
		for i := range elems {
			if reached {
				elems[i] = ast.NewTerm(prune(t.Elem(i).Value, c))
			} else {
				elems[i] = nullTerm
			}
		}
		return ast.NewArray(elems...)
	}
	return v
}

// The values of a node read only for its kind: one of each kind, shared (values are never
// changed once built). An array keeps its length (count reads it), of nulls.
var (
	emptyObject = ast.NewObject()
	nullTerm    = ast.NullTerm()
	emptyString = ast.String("")
	zero        = ast.Number("0")
)

func kindOf(v ast.Value) ast.Value {
	switch t := v.(type) {
	case ast.Object:
		return emptyObject
	case *ast.Array:
		elems := make([]*ast.Term, t.Len())
		for i := range elems {
			elems[i] = nullTerm
		}
		return ast.NewArray(elems...)
	case ast.String:
		return emptyString
	case ast.Number:
		return zero
	}
	return v // booleans and null
}

// copyValue is v with new terms: objects and arrays are rebuilt, scalars shared.
func copyValue(v ast.Value) ast.Value {
	switch t := v.(type) {
	case ast.Object:
		pairs := make([][2]*ast.Term, 0, t.Len())
		t.Foreach(func(k, e *ast.Term) {
			pairs = append(pairs, [2]*ast.Term{ast.NewTerm(k.Value), ast.NewTerm(copyValue(e.Value))})
		})
		return ast.NewObject(pairs...)
	case *ast.Array:
		elems := make([]*ast.Term, t.Len())
		for i := range elems {
			elems[i] = ast.NewTerm(copyValue(t.Elem(i).Value))
		}
		return ast.NewArray(elems...)
	}
	return v
}
