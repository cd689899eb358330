package policy

import (
	"errors"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/tfgate/tfgate/internal/astjson"
)

// inputPathsRead is the part of the plan the compiled policies can read, for the decoder
// to build only that much of a large plan (astjson.Paths): which members, down to which
// attributes, and which only for their kind. It follows each value taken from input
// through variables, comprehensions, rules and function calls (readAnalysis); a value
// used in any way it does not model (compared, passed to a built-in, returned as a
// finding) is read whole. It returns nil, the whole plan, when the policies do something
// it does not follow (errGaveUp).
//
// outputs are the rules tfgate queries: their values are read whole.
func inputPathsRead(c *ast.Compiler, outputs []ast.Ref) *astjson.Paths {
	a := newReadAnalysis(c)
	var queue []*ast.Rule
	for _, rs := range a.rules {
		queue = append(queue, rs...)
	}
	// Each pass follows the rules whose parameters or the values they read grew in the
	// pass before (all of them, the first time).
	for pass := 0; len(queue) > 0; pass++ {
		if pass == maxPasses {
			return nil
		}
		a.dirty = map[string]bool{}
		for _, r := range queue {
			a.current = r
			a.rule(r, nil)
		}
		a.current = nil
		a.kenv = map[ast.Var][]*ast.Term{}
		for _, o := range outputs {
			a.use(a.ref(o, env{}), useWhole)
		}
		if a.err != nil {
			return nil
		}
		queue = a.dependents()
	}
	return a.reads
}

// dependents are the rules that read a value or parameter set that grew in this pass.
func (a *readAnalysis) dependents() []*ast.Rule {
	seen := map[*ast.Rule]bool{}
	var out []*ast.Rule
	for k := range a.dirty {
		for r := range a.deps[k] {
			if !seen[r] {
				seen[r] = true
				out = append(out, r)
			}
		}
	}
	return out
}

// readSet notes that the rule being followed reads the set key ("v" or "p" and a path).
func (a *readAnalysis) readSet(key string) {
	if a.current == nil {
		return
	}
	if a.deps[key] == nil {
		a.deps[key] = map[*ast.Rule]bool{}
	}
	a.deps[key][a.current] = true
}

// maxPasses bounds the analysis: each pass can only add to what flows where, and Rego has
// no recursion, so real policies settle in a few passes.
const (
	maxPasses  = 64
	maxPathLen = 16
)

// errGaveUp stops the analysis at a construct it does not follow.
var errGaveUp = errors.New("input reads not followed")

// An alias says that the part of a value at path at (its own members and elements, from
// rules and comprehensions built over input) is the input's node at path in.
type alias struct{ at, in []astjson.Seg }

// absval is what of input a value may hold, as aliases.
type absval []alias

// aliasSet is an absval kept without repeats, for the values of rules and the parameters
// of functions, which grow from pass to pass.
type aliasSet map[string]alias

// add adds al, reporting whether it was new.
func (s aliasSet) add(al alias) bool {
	k := segsKey(al.at) + "\x00" + segsKey(al.in)
	if _, ok := s[k]; ok {
		return false
	}
	s[k] = al
	return true
}

func (s aliasSet) list() absval {
	out := make(absval, 0, len(s))
	for k, a := range s {
		if k != collapsed {
			out = append(out, a)
		}
	}
	return out
}

// env binds the variables of one rule: a bound variable is present, with what it holds.
type env map[ast.Var]absval

// How a value is used.
type use int

const (
	useWhole  use = iota // its value is read
	useExists            // only whether it is there, and its kind (is_object, a lookup)
	useCount             // its size: its members' keys, not their values
)

type readAnalysis struct {
	c      *ast.Compiler
	rules  map[string][]*ast.Rule // by the ground part of their path
	arity  map[string]int         // user functions
	values map[string]aliasSet    // what each rule's value (a function's result) holds
	params map[string][]aliasSet  // what each function's parameters hold
	reads  *astjson.Paths
	err    error
	// kenv holds the constants of the variables of the rule followed (inputpaths_const.go).
	kenv         map[ast.Var][]*ast.Term
	replacesData bool
	rulesByRef   map[string][]*ast.Rule // rulesAt's answers
	// The worklist of inputPathsRead: the rule followed, the sets each rule reads, the sets
	// that grew in this pass.
	current *ast.Rule
	deps    map[string]map[*ast.Rule]bool
	dirty   map[string]bool
}

// rulesAt is every rule that may define the document at r, or a document under it or
// holding it (the compiler's GetRulesDynamic), asked once per ref.
func (a *readAnalysis) rulesAt(r ast.Ref) []*ast.Rule {
	k := r.String()
	rs, ok := a.rulesByRef[k]
	if !ok {
		rs = a.c.GetRulesDynamicWithOpts(r, ast.RulesOptions{IncludeHiddenModules: true})
		a.rulesByRef[k] = rs
	}
	return rs
}

func newReadAnalysis(c *ast.Compiler) *readAnalysis {
	a := &readAnalysis{c: c, rules: map[string][]*ast.Rule{}, arity: map[string]int{},
		values: map[string]aliasSet{}, params: map[string][]aliasSet{}, reads: astjson.NoPaths(),
		replacesData: replacesData(c), rulesByRef: map[string][]*ast.Rule{}, deps: map[string]map[*ast.Rule]bool{}}
	for _, m := range c.Modules {
		for _, r := range m.Rules {
			p := r.Ref().GroundPrefix().String()
			a.rules[p] = append(a.rules[p], r)
			if n := len(r.Head.Args); n > 0 {
				a.arity[p] = n
			}
		}
	}
	return a
}

// rule follows one rule (and its else branches) with the current parameters and values.
// args are the head's parameters, for else branches that leave them out.
func (a *readAnalysis) rule(r *ast.Rule, args ast.Args) {
	path := r.Ref().GroundPrefix().String()
	if len(r.Head.Args) > 0 {
		args = r.Head.Args
	}
	e := env{}
	a.kenv = map[ast.Var][]*ast.Term{}
	for i, t := range args {
		held := a.paramRead(path, i)
		if v, ok := t.Value.(ast.Var); ok && !bound(v, e) {
			e[v] = held
			continue
		}
		// A pattern, or a parameter named twice (f(x, x)), compares what it is given.
		a.use(held, useWhole)
		a.use(a.term(t, e), useWhole)
		a.bindFree(t, e)
	}
	a.body(r.Body, e)
	for _, t := range r.Ref()[len(r.Ref().GroundPrefix()):] {
		a.use(a.term(t, e), useWhole) // the keys of a rule's ref head (s[k] contains v)
	}
	switch {
	case r.Head.RuleKind() == ast.MultiValue:
		a.use(a.term(r.Head.Key, e), useWhole) // a set's members are compared with each other
	case r.Head.Value != nil:
		v := a.term(r.Head.Value, e)
		if a.mayConflict(r, path) {
			// OPA compares the values a single-valued rule gives: two that differ are an
			// error (eval_conflict_error), so they are read whole.
			a.use(v, useWhole)
			v = nil
		}
		for range r.Ref()[len(r.Ref().GroundPrefix()):] {
			v = under(astjson.Seg{Any: true}, v)
		}
		a.addAll("v"+path, a.value(path), v)
	}
	if r.Else != nil {
		a.rule(r.Else, args)
	}
}

// mayConflict reports whether a single-valued rule may give two values that OPA compares:
// it has a computed key in its ref head (a partial object, o[k] := v), or another rule
// besides a default may define the same document, or its body may succeed more than once
// (an iteration outside comprehensions, a relation such as walk).
func (a *readAnalysis) mayConflict(r *ast.Rule, path string) bool {
	if len(r.Ref()) > len(r.Ref().GroundPrefix()) {
		return true
	}
	// Every rule that may define the same document: at the same path, or a ref head with a
	// computed key that can be this one (o.a := x beside o[k] := v).
	defs := 0
	for _, d := range a.rulesAt(r.Ref()) {
		if !d.Default {
			defs++
		}
	}
	return defs > 1 || a.iterates(r.Body)
}

func (a *readAnalysis) value(path string) aliasSet {
	if a.values[path] == nil {
		a.values[path] = aliasSet{}
	}
	return a.values[path]
}

// valueRead is what the rule at path holds, read by the rule being followed.
func (a *readAnalysis) valueRead(path string) absval {
	a.readSet("v" + path)
	return a.value(path).list()
}

func (a *readAnalysis) param(path string, i int) aliasSet {
	ps := a.params[path]
	for len(ps) <= i {
		ps = append(ps, aliasSet{})
	}
	a.params[path] = ps
	return ps[i]
}

// paramRead is what parameter i of the function at path holds, read by its own rule.
func (a *readAnalysis) paramRead(path string, i int) absval {
	a.readSet("p" + path)
	return a.param(path, i).list()
}

// addAll adds v to s, the set key, noting it dirty (its readers to follow again) if
// anything was new.
func (a *readAnalysis) addAll(key string, s aliasSet, v absval) {
	if _, full := s[collapsed]; full {
		a.use(v, useWhole)
		return
	}
	for _, al := range v {
		if len(al.at) > maxAtLen {
			a.reads.Add(al.in, true) // see follow
			continue
		}
		if s.add(al) {
			a.dirty[key] = true
		}
	}
	if len(s) > maxAliases {
		// Widening: a rule or parameter that holds this much of input (an identity
		// function called from everywhere, say) is read whole, and whatever reaches it
		// later too; the set no longer grows from pass to pass.
		a.use(s.list(), useWhole)
		clear(s)
		s[collapsed] = alias{}
		a.dirty[key] = true
	}
}

// collapsed marks an aliasSet widened by addAll: everything added to it is read whole.
const collapsed = "\x00collapsed"

// maxAliases bounds an aliasSet, and maxAtLen the depth of containers built over input
// that an alias follows (comprehensions of comprehensions): past them, what they hold is
// read whole.
const (
	maxAliases = 32
	maxAtLen   = 4
)

func segsKey(p []astjson.Seg) string {
	var b strings.Builder
	for _, s := range p {
		if s.Any {
			b.WriteString("\x01")
		} else {
			b.WriteString(s.Key)
		}
		b.WriteByte(0)
	}
	return b.String()
}

// under is v as part of a container, at key s.
func under(s astjson.Seg, v absval) absval {
	out := make(absval, len(v))
	for i, al := range v {
		out[i] = alias{at: append([]astjson.Seg{s}, al.at...), in: al.in}
	}
	return out
}

// use marks what v holds of input as read, as u says. A value holding input's node deeper
// in it (a comprehension's array) is read whole when its value is; its kind and size are
// the container's own.
func (a *readAnalysis) use(v absval, u use) {
	for _, al := range v {
		switch {
		case len(al.at) > 0 && u != useWhole:
		case u == useCount && len(al.at) == 0:
			a.reads.Add(append(append([]astjson.Seg{}, al.in...), astjson.Seg{Any: true}), false)
		default:
			a.reads.Add(al.in, u == useWhole)
		}
	}
}

// pathsRead is the engine's inputPaths: what its queried rules read (inputPathsRead), and
// the members data.tfgate.risk is counted from when a policy may read it (RiskOf reads
// both sides of every change: those members are kept whole). When the analysis gives up,
// the top-level members the policies name (inputKeysRead), whole.
func (e *Engine) pathsRead(c *ast.Compiler) *astjson.Paths {
	var outputs []ast.Ref
	for _, rs := range [][]rule{e.rules, e.exceptions, e.approvals} {
		for _, r := range rs {
			outputs = append(outputs, r.ref)
		}
	}
	p := inputPathsRead(c, outputs)
	if p == nil {
		keys := inputKeysRead(c)
		if keys == nil {
			return nil
		}
		p = astjson.NoPaths()
		for k := range keys {
			p.Add([]astjson.Seg{{Key: k}}, true)
		}
	}
	if e.readsRisk {
		for _, k := range riskKeys {
			p.Add([]astjson.Seg{{Key: k}}, true)
		}
	}
	return p.Freeze() // shared by the evaluations of every project, at once
}
