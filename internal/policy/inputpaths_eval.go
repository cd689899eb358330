package policy

import (
	"maps"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/tfgate/tfgate/internal/astjson"
)

// The expressions and terms of readAnalysis: what each holds of input, and how it uses it.
// The modules are compiled: every call stands in its own expression with its result in a
// variable, `x := ...` is unification, `some x in xs` is `x = xs[_]`, and every variable
// is bound (unified, iterated, a parameter) before it is used.

// typeOnly are the built-ins that read only their argument's kind.
var typeOnly = map[string]bool{
	"is_object": true, "is_array": true, "is_string": true, "is_number": true,
	"is_boolean": true, "is_null": true, "is_set": true, "type_name": true,
}

// scoped runs f on a nested body (a comprehension's, every's): the variables it binds
// are its own, unbound again after it, so that a sibling body's variable of the same name
// (the compiler leaves `x = ...` names as written) is not taken for them.
func (a *readAnalysis) scoped(e env, f func()) {
	outer, outerK := maps.Clone(e), maps.Clone(a.kenv)
	f()
	maps.DeleteFunc(e, func(v ast.Var, _ absval) bool { _, ok := outer[v]; return !ok })
	a.kenv = outerK
}

func (a *readAnalysis) body(b ast.Body, e env) {
	for _, x := range b {
		a.expr(x, e)
	}
}

func (a *readAnalysis) expr(x *ast.Expr, e env) {
	for _, w := range x.With {
		// The expression sees w.Value in place of w.Target, whatever it holds; what the
		// expression reads besides stays read from input (more than it needs). A function
		// replaced (with f as g, with count as g) is not followed.
		if target, ok := w.Target.Value.(ast.Ref); !ok || !target[0].Equal(ast.InputRootDocument) &&
			(!target[0].Equal(ast.DefaultRootDocument) || a.arity[target.String()] > 0) {
			a.err = errGaveUp
		}
		a.use(a.term(w.Value, e), useWhole)
	}
	switch t := x.Terms.(type) {
	case *ast.Term:
		a.use(a.term(t, e), useWhole) // true unless undefined or false
	case []*ast.Term:
		a.call(t, e, true)
	case *ast.Every:
		held := a.term(t.Domain, e)
		a.scoped(e, func() {
			a.bindFree(t.Key, e)
			if v, ok := t.Value.Value.(ast.Var); ok {
				e[v] = a.follow(held, []astjson.Seg{{Any: true}})
			} else {
				a.use(held, useWhole)
				a.bindFree(t.Value, e)
			}
			a.body(t.Body, e)
		})
	case *ast.SomeDecl:
		for _, s := range t.Symbols {
			if _, ok := s.Value.(ast.Var); !ok {
				a.err = errGaveUp // `some x in xs` the compiler did not rewrite
			}
		}
	default:
		a.err = errGaveUp
	}
}

// call follows a call: an expression's (terms[0] is the operator) or a call term's. It
// returns what the call's result holds when the call has no output argument.
func (a *readAnalysis) call(terms []*ast.Term, e env, isExpr bool) absval {
	op, ok := terms[0].Value.(ast.Ref)
	if !ok {
		a.err = errGaveUp
		return nil
	}
	name, args := op.String(), terms[1:]
	if isExpr && (name == "eq" || name == "assign") && len(args) == 2 {
		a.unify(args[0], args[1], e)
		return nil
	}
	var n int
	var result absval
	switch fn := op[0].Value.(ast.Var); {
	case fn.Equal(ast.DefaultRootDocument.Value):
		var ok bool
		if n, ok = a.arity[name]; !ok {
			a.err = errGaveUp
			return nil
		}
		for i := 0; i < n && i < len(args); i++ {
			a.addAll("p"+name, a.param(name, i), a.term(args[i], e))
		}
		result = a.valueRead(name)
	default:
		var ok bool
		if n, result, ok = a.builtin(name, args, e); !ok {
			a.err = errGaveUp
			return nil
		}
	}
	if len(args) > n {
		a.output(args[n], result, e)
		return nil
	}
	if isExpr {
		a.use(result, useWhole) // the result must be true
	}
	return result
}

// builtin follows a call of a built-in function: its arguments are read whole, but for
// the built-ins that read only their argument's kind or size, and for object.get, which
// reads the path it is given. It returns the number of arguments (an output follows) and
// what the result holds; false for a function OPA does not know.
func (a *readAnalysis) builtin(name string, args []*ast.Term, e env) (int, absval, bool) {
	b := ast.BuiltinMap[name]
	if b == nil || b.Decl == nil {
		return 0, nil, false
	}
	n := len(b.Decl.FuncArgs().Args)
	if b.Decl.FuncArgs().Variadic != nil {
		n = len(args)
	}
	if name == "object.get" && len(args) >= 3 {
		if path, ok := a.keyPath(args[1], e); ok {
			held := a.follow(a.term(args[0], e), path)
			return n, append(held, a.term(args[2], e)...), true
		}
	}
	u := useWhole
	switch {
	case typeOnly[name]:
		u = useExists
	case name == "count":
		u = useCount
	}
	for i := 0; i < n && i < len(args); i++ {
		a.use(a.term(args[i], e), u)
	}
	return n, nil, true
}

// keyPath is the path object.get is given: a key, or an array of keys.
func (a *readAnalysis) keyPath(t *ast.Term, e env) ([]astjson.Seg, bool) {
	key := func(t *ast.Term) astjson.Seg {
		if s, ok := t.Value.(ast.String); ok {
			return astjson.Seg{Key: string(s)}
		}
		a.use(a.term(t, e), useWhole)
		return astjson.Seg{Any: true}
	}
	switch k := t.Value.(type) {
	case ast.String:
		return []astjson.Seg{{Key: string(k)}}, true
	case *ast.Array:
		path := make([]astjson.Seg, k.Len())
		for i := range path {
			path[i] = key(k.Elem(i))
		}
		return path, true
	}
	return nil, false
}

// output puts what a call's result holds into its output argument: a new variable, or a
// value it is compared with.
func (a *readAnalysis) output(t *ast.Term, held absval, e env) {
	if v, ok := t.Value.(ast.Var); ok && !bound(v, e) {
		e[v] = held
		return
	}
	a.use(held, useWhole)
	a.use(a.term(t, e), useWhole)
	a.bindFree(t, e)
}

// unify follows x = y: a new variable takes what the other side holds; anything else
// compares the sides (or takes them apart), reading both whole.
func (a *readAnalysis) unify(x, y *ast.Term, e env) {
	if v, ok := x.Value.(ast.Var); ok && !bound(v, e) {
		e[v] = a.term(y, e)
		a.bindConst(v, y)
		return
	}
	if v, ok := y.Value.(ast.Var); ok && !bound(v, e) {
		e[v] = a.term(x, e)
		a.bindConst(v, x)
		return
	}
	a.use(a.term(x, e), useWhole)
	a.use(a.term(y, e), useWhole)
	a.bindFree(x, e)
	a.bindFree(y, e)
}

func bound(v ast.Var, e env) bool {
	if v.Equal(ast.InputRootDocument.Value) || v.Equal(ast.DefaultRootDocument.Value) {
		return true
	}
	_, ok := e[v]
	return ok
}

// bindFree binds the variables of t not yet bound (parts of a pattern), holding nothing
// of input: what they are parts of was read whole.
func (a *readAnalysis) bindFree(t *ast.Term, e env) {
	ast.WalkVars(t, func(v ast.Var) bool {
		if !bound(v, e) {
			e[v] = nil
		}
		return false
	})
}

// term is what t holds of input; reading it marks the input nodes it reaches as there.
func (a *readAnalysis) term(t *ast.Term, e env) absval {
	switch v := t.Value.(type) {
	case ast.Var:
		if v.Equal(ast.InputRootDocument.Value) || v.Equal(ast.DefaultRootDocument.Value) {
			return a.ref(ast.Ref{t}, e)
		}
		return e[v]
	case ast.Ref:
		return a.ref(v, e)
	case *ast.ArrayComprehension:
		var held absval
		a.scoped(e, func() {
			a.body(v.Body, e)
			held = under(astjson.Seg{Any: true}, a.term(v.Term, e))
		})
		return held
	case *ast.SetComprehension:
		a.scoped(e, func() {
			a.body(v.Body, e)
			a.use(a.term(v.Term, e), useWhole)
		})
		return nil
	case *ast.ObjectComprehension:
		// Two members of one key must hold the same value (else eval_conflict_error): the
		// values are compared, so read whole.
		a.scoped(e, func() {
			a.body(v.Body, e)
			a.use(a.term(v.Key, e), useWhole)
			a.use(a.term(v.Value, e), useWhole)
		})
		return nil
	case ast.Call:
		return a.call(v, e, false)
	case *ast.Array, ast.Object, ast.Set:
		ast.WalkTerms(v, func(x *ast.Term) bool {
			if x == t {
				return false
			}
			a.use(a.term(x, e), useWhole)
			return true // each part is followed by the call above
		})
	}
	return nil
}

// ref is what the ref r holds of input. A key held in a variable bound to constants (see
// konst) is each of them in turn; any other computed key is any key.
func (a *readAnalysis) ref(r ast.Ref, e env) absval {
	segs := make([]astjson.Seg, 0, len(r)-1)
	var alts map[int][]string
	for i, t := range r[1:] {
		switch k := t.Value.(type) {
		case ast.String:
			segs = append(segs, astjson.Seg{Key: string(k)})
		default:
			segs = append(segs, astjson.Seg{Any: true})
			if v, ok := k.(ast.Var); ok && !bound(v, e) {
				e[v] = nil // iterating: the key is bound to each key
				continue
			}
			a.use(a.term(t, e), useWhole) // a key compared with the document's keys
			if keys := a.constKeys(t); keys != nil {
				if alts == nil {
					alts = map[int][]string{}
				}
				alts[i] = keys
			}
		}
	}
	out := aliasSet{}
	for _, segs := range expand(segs, alts) {
		for _, al := range a.refSegs(r, segs, e) {
			out.add(al)
		}
	}
	return out.list()
}

// refSegs is what r holds of input with its keys after the head being segs.
func (a *readAnalysis) refSegs(r ast.Ref, segs []astjson.Seg, e env) absval {
	var base absval
	switch h := r[0].Value.(type) {
	case ast.Var:
		switch {
		case h.Equal(ast.InputRootDocument.Value):
			base = absval{{}}
		case h.Equal(ast.DefaultRootDocument.Value):
			return a.data(r, segs)
		default:
			base = e[h]
		}
	default:
		base = a.term(r[0], e)
	}
	return a.follow(base, segs)
}

// follow is what the part at segs of a value holding v holds, marking the input nodes it
// reaches as there. A path past maxPathLen is read whole at that depth and followed no
// further (what is under a node read whole needs no following): context-free parameters
// could otherwise lengthen a path on every pass.
func (a *readAnalysis) follow(v absval, segs []astjson.Seg) absval {
	out := make(aliasSet, len(v))
	for _, al := range v {
		i := 0
		for ; i < len(al.at) && i < len(segs); i++ {
			if !al.at[i].Any && !segs[i].Any && al.at[i].Key != segs[i].Key {
				break
			}
		}
		switch {
		case i < len(al.at) && i < len(segs): // another part of the value
		case i < len(al.at):
			out.add(alias{at: al.at[i:], in: al.in})
		default:
			in := append(append([]astjson.Seg{}, al.in...), segs[i:]...)
			if len(in) > maxPathLen {
				a.reads.Add(in[:maxPathLen], true)
				continue
			}
			a.reads.Add(in, false)
			out.add(alias{in: in})
		}
	}
	return out.list()
}

// data is what the ref r into data (segs after its head) holds of input: through the rules
// it reaches. A ref into a rule's value follows that value; a ref to a document holding
// rules (a package, or data with a computed key) reads their values whole.
func (a *readAnalysis) data(r ast.Ref, segs []astjson.Seg) absval {
	out := aliasSet{}
	for _, rl := range a.rulesAt(r) {
		gp := rl.Ref().GroundPrefix()
		path := gp.String()
		if len(r) >= len(gp) && r[:len(gp)].Equal(gp) {
			for _, al := range a.follow(a.valueRead(path), segs[len(gp)-1:]) {
				out.add(al)
			}
			continue
		}
		a.use(a.valueRead(path), useWhole)
	}
	return out.list()
}
