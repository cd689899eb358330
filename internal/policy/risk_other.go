package policy

import (
	"slices"

	"github.com/open-policy-agent/opa/v1/ast"
)

// What else a plan does besides its resource changes' actions: a tags-only plan
// (Risk.TagsOnly) may go with fewer approvals, so anything else it would apply keeps the
// configured count — fail closed on what is not known to be harmless.

// riskKeys are the top-level plan keys RiskOf reads: kept in a policy's input whenever the
// risk facts are counted (Engine.Reads).
var riskKeys = []string{"resource_changes", "output_changes", "action_invocations", "deferred_changes"}

// otherChange reports whether the plan changes something besides its managed resources: an
// output whose action is not no-op, an action invocation (Terraform 1.14 runs provider code
// on apply), or a deferred change (a partial plan applies more later).
func otherChange(plan ast.Object) bool {
	if plan == nil {
		return false
	}
	for _, key := range []string{"action_invocations", "deferred_changes"} {
		if nonEmpty(get(plan, key)) {
			return true
		}
	}
	outs, _ := get(plan, "output_changes").(ast.Object)
	for _, k := range keysOf(outs) {
		change, _ := outs.Get(k).Value.(ast.Object) // a change representation itself
		if !slices.Equal(actions(change), []string{"no-op"}) {
			return true
		}
	}
	return false
}

// stateChange reports whether a resource change (rc, its change) also changes the state
// otherwise than its action says: an import, or a move from another address.
func stateChange(rc, change ast.Object) bool {
	if imp := get(change, "importing"); imp != nil {
		if _, null := imp.(ast.Null); !null {
			return true
		}
	}
	prev := str(rc, "previous_address")
	return prev != "" && prev != str(rc, "address")
}

// nonEmpty reports whether v is a non-empty array or object.
func nonEmpty(v ast.Value) bool {
	switch x := v.(type) {
	case *ast.Array:
		return x.Len() > 0
	case ast.Object:
		return x.Len() > 0
	}
	return false
}

func keysOf(o ast.Object) []*ast.Term {
	if o == nil {
		return nil
	}
	return o.Keys()
}
