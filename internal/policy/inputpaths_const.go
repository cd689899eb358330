package policy

import (
	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/tfgate/tfgate/internal/astjson"
)

// Constants in readAnalysis: a key computed from constants (an element of a rule's literal
// value, such as the tag attributes of each provider) reads those keys, not every key. A
// variable's constants are known only where it is bound, in the rule's own body, to a
// literal or a ref into constants: whatever else binds it (a parameter, a built-in's
// result, an iteration key) leaves it unknown, and an unknown key is any key.

// maxConsts bounds the constants followed for one term, and the keys one ref expands to.
const maxConsts = 16

// bindConst notes the constants v is bound to, when t is made of them.
func (a *readAnalysis) bindConst(v ast.Var, t *ast.Term) {
	if k := a.konst(t); k != nil {
		a.kenv[v] = k
	}
}

// konst is the values t can have when it is made of constants; nil when unknown.
func (a *readAnalysis) konst(t *ast.Term) []*ast.Term {
	switch v := t.Value.(type) {
	case ast.Var:
		return a.kenv[v]
	case ast.Ref:
		return a.konstRef(v)
	}
	if ast.IsConstant(t.Value) {
		return []*ast.Term{t}
	}
	return nil
}

// konstRef is konst of a ref into a variable's constants or a constant rule's value.
func (a *readAnalysis) konstRef(r ast.Ref) []*ast.Term {
	var vals []*ast.Term
	rest := r[1:]
	switch h := r[0].Value.(type) {
	case ast.Var:
		if !h.Equal(ast.DefaultRootDocument.Value) {
			vals = a.kenv[h]
			break
		}
		for i := len(r); i >= 2 && vals == nil; i-- {
			if r[:i].IsGround() {
				vals, rest = a.constRule(r[:i]), r[i:]
			}
		}
	}
	for _, seg := range rest {
		if vals == nil {
			return nil
		}
		vals = lookupAll(vals, a.konst(seg))
	}
	return vals
}

// lookupAll is every value at one of keys (any key when keys is nil) in one of vals; nil
// when there are none or too many.
func lookupAll(vals, keys []*ast.Term) []*ast.Term {
	var out []*ast.Term
	for _, v := range vals {
		switch c := v.Value.(type) {
		case ast.Object:
			if keys == nil {
				c.Foreach(func(_, x *ast.Term) { out = append(out, x) })
			}
			for _, k := range keys {
				if x := c.Get(k); x != nil {
					out = append(out, x)
				}
			}
		case *ast.Array:
			if keys == nil {
				c.Foreach(func(x *ast.Term) { out = append(out, x) })
			}
			for _, k := range keys {
				if n, ok := k.Value.(ast.Number); ok {
					if i, ok := n.Int(); ok && i >= 0 && i < c.Len() {
						out = append(out, c.Elem(i))
					}
				}
			}
		default:
			return nil // a set, or a scalar: not followed
		}
		if len(out) > maxConsts {
			return nil
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// constRule is the value of the rule at the ground path p when it is a constant: the one
// rule there, a literal value with no body, no else, no arguments, and no `with` anywhere
// in the policies replacing a document of data. Nil otherwise.
func (a *readAnalysis) constRule(p ast.Ref) []*ast.Term {
	if a.replacesData || tfgateDoc(p) {
		return nil
	}
	rs := a.rulesAt(p)
	if len(rs) != 1 {
		return nil
	}
	r := rs[0]
	if len(r.Head.Args) > 0 || r.Else != nil || r.Default || r.Head.RuleKind() != ast.SingleValue ||
		r.Head.Value == nil || !ast.IsConstant(r.Head.Value.Value) || !r.Ref().Equal(p) || !trueBody(r.Body) {
		return nil
	}
	return []*ast.Term{r.Head.Value}
}

// tfgateDoc reports whether p is under a document tfgate puts in place for each evaluation
// (data.tfgate.project, author, risk): a rule defining one is replaced by evalWith.
func tfgateDoc(p ast.Ref) bool {
	for _, d := range tfgateDocRefs {
		if p.HasPrefix(d) {
			return true
		}
	}
	return false
}

// tfgateDocRefs are the refs of tfgateDocs, parsed once.
var tfgateDocRefs = func() []ast.Ref {
	out := make([]ast.Ref, len(tfgateDocs))
	for i, d := range tfgateDocs {
		out[i] = ast.MustParseRef("data.tfgate." + d)
	}
	return out
}()

func trueBody(b ast.Body) bool {
	if len(b) != 1 || b[0].Negated || len(b[0].With) > 0 {
		return false
	}
	t, ok := b[0].Terms.(*ast.Term)
	return ok && t.Value.Compare(ast.Boolean(true)) == 0
}

// constKeys are the keys a ref's computed key t can be: its constants, when all are
// strings; nil for any key.
func (a *readAnalysis) constKeys(t *ast.Term) []string {
	vals := a.konst(t)
	if vals == nil {
		return nil
	}
	keys := make([]string, 0, len(vals))
	for _, v := range vals {
		s, ok := v.Value.(ast.String)
		if !ok {
			return nil
		}
		keys = append(keys, string(s))
	}
	return keys
}

// expand is segs with each position of alts, in turn, each of its keys; positions are left
// any key past maxConsts combinations.
func expand(segs []astjson.Seg, alts map[int][]string) [][]astjson.Seg {
	out := [][]astjson.Seg{segs}
	for i, keys := range alts {
		if len(out)*len(keys) > maxConsts {
			continue
		}
		var next [][]astjson.Seg
		for _, s := range out {
			for _, k := range keys {
				c := append([]astjson.Seg{}, s...)
				c[i] = astjson.Seg{Key: k}
				next = append(next, c)
			}
		}
		out = next
	}
	return out
}

// replacesData reports whether some `with` in the policies replaces a document of data: a
// constant rule's value may then not be its literal.
func replacesData(c *ast.Compiler) bool {
	found := false
	vis := ast.NewGenericVisitor(func(x any) bool {
		if w, ok := x.(*ast.With); ok && w.Target.Value.(ast.Ref)[0].Equal(ast.DefaultRootDocument) {
			found = true
		}
		return found
	})
	for _, m := range c.Modules {
		vis.Walk(m)
	}
	return found
}

// iterates reports whether a body may succeed more than once: a ref with a variable key
// outside comprehensions (x = xs[_], some k, v in o), or a call of a relation (walk).
// Conservative: a key already bound counts too.
func (a *readAnalysis) iterates(b ast.Body) bool {
	found := false
	vis := ast.NewGenericVisitor(func(x any) bool {
		switch t := x.(type) {
		case *ast.ArrayComprehension, *ast.SetComprehension, *ast.ObjectComprehension, *ast.Every:
			return true // a single value, or a test
		case ast.Ref:
			for _, k := range t[1:] {
				if !ast.IsConstant(k.Value) {
					found = true
				}
			}
		case *ast.Expr:
			if t.IsCall() {
				if b := ast.BuiltinMap[t.Operator().String()]; b != nil && b.Relation {
					found = true
				}
			}
		}
		return found
	})
	vis.Walk(b)
	return found
}
