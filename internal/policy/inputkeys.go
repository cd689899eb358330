package policy

import (
	"github.com/open-policy-agent/opa/v1/ast"
)

// inputKeysRead returns the top-level input keys the compiled policies can
// read, or nil when they may read any: a bare `input` (passed to a function,
// assigned, walked) or input indexed by a computed key. The decoder then
// skips the rest of the plan. The analysis is conservative: only a ref that
// names its first key with a string constant narrows the set.
func inputKeysRead(c *ast.Compiler) map[string]bool {
	keys := map[string]bool{}
	all := false
	var vis *ast.GenericVisitor
	vis = ast.NewGenericVisitor(func(x any) bool {
		if all {
			return true
		}
		switch t := x.(type) {
		case ast.Ref:
			if !t[0].Equal(ast.InputRootDocument) {
				return false
			}
			if len(t) < 2 {
				all = true
				return true
			}
			s, ok := t[1].Value.(ast.String)
			if !ok {
				all = true
				return true
			}
			keys[string(s)] = true
			for _, el := range t[1:] { // refs nested in the path, e.g. x[input.y]
				vis.Walk(el)
			}
			return true
		case ast.Var:
			if t.Equal(ast.InputRootDocument.Value) {
				all = true
			}
		}
		return false
	})
	for _, m := range c.Modules {
		vis.Walk(m)
		if all {
			return nil
		}
	}
	return keys
}

// readsRisk reports whether a policy may read data.tfgate.risk: by that path, or through
// data.tfgate (or data) as a whole or by a computed key.
func readsRisk(c *ast.Compiler) bool {
	prefix := ast.MustParseRef("data.tfgate.risk")
	found := false
	vis := ast.NewGenericVisitor(func(x any) bool {
		r, ok := x.(ast.Ref)
		if found || !ok || !r[0].Equal(ast.DefaultRootDocument) {
			return found
		}
		for i := 1; i < len(prefix); i++ {
			if i >= len(r) {
				found = true // a prefix of data.tfgate.risk: the whole document
				return true
			}
			if _, constant := r[i].Value.(ast.String); !constant {
				found = true
				return true
			}
			if !r[i].Equal(prefix[i]) {
				return false
			}
		}
		found = true
		return true
	})
	for _, m := range c.Modules {
		vis.Walk(m)
	}
	return found
}
