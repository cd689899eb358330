package plan

import (
	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/tfgate/tfgate/internal/astjson"
)

// The members policies read only part of (the resource changes, when the policies look at
// a few attributes of each): each is kept pruned to what they read (astjson.Prune), and an
// array of them is read element by element, each element decoded whole, checked and
// harvested as the decoded members are, then pruned and dropped. The plan's largest member
// never stands whole in memory.

// partial reports whether the policies read only part of the top-level member key.
func partial(reads *astjson.Paths, key string) bool {
	need, ok := reads.Child(key)
	return ok && !need.Whole()
}

// prunedMember is the member key, whose text is raw, pruned to need; it is checked and
// harvested whole (member, walkValue) on its way. walk runs a harvest beside the decoding
// (see decode).
func (o *opening) prunedMember(key string, raw []byte, need *astjson.Paths, walk func(func(h *harvest) error)) (ast.Value, error) {
	dec := astjson.NewSkimmer()
	if len(raw) == 0 || raw[0] != '[' {
		v, err := dec.Decode(raw)
		if err != nil {
			return nil, err
		}
		o.member(key, v)
		walk(func(h *harvest) error { h.walkValue(v); return nil })
		return astjson.Prune(v, need), nil
	}
	elemNeed, reached := need.Elem()
	h := newHarvest()
	var elems []*ast.Term
	err := astjson.NewSkimmer().Elements(raw, func(text []byte) error {
		v, err := dec.Decode(text)
		if err != nil {
			return err
		}
		o.member(key, ast.NewArray(ast.NewTerm(v))) // an array's checks and harvest are its elements'
		h.walkValue(v)
		if !reached {
			elems = append(elems, ast.NullTerm())
			return nil
		}
		elems = append(elems, ast.NewTerm(astjson.Prune(v, elemNeed)))
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(elems) == 0 {
		o.member(key, ast.NewArray())
	}
	walk(func(into *harvest) error { into.merge(h); return nil })
	return ast.NewArray(elems...), nil
}

// withMembers is the decoded input with the pruned members added.
func withMembers(input ast.Value, pruned map[string]ast.Value) ast.Value {
	obj, ok := input.(ast.Object)
	if !ok || len(pruned) == 0 {
		return input
	}
	for k, v := range pruned {
		obj.Insert(ast.StringTerm(k), ast.NewTerm(v))
	}
	return obj
}
