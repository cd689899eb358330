package plan

import "github.com/open-policy-agent/opa/v1/ast"

// shapeOK reports whether a top-level member of a plan document has the shape the typed
// decoder (Decode, into terraform-json's types) accepts, as far as policies and redaction
// read it: arrays where it wants arrays, strings where it wants strings, down to the
// actions of each change. Policies must never pass a plan because a section they iterate
// is of another type (a string where resource_changes are, "delete" where ["delete"] is):
// Open asks Decode about any member that fails here, and Decode's type error stops it.
// A false alarm only costs that second decoding.
func shapeOK(key string, v ast.Value) bool {
	if s, ok := topShapes[key]; ok {
		return s(v)
	}
	return true
}

// A shape says whether a value has the expected shape; null always has (the typed decoder
// leaves the member empty).
type shape func(ast.Value) bool

var (
	isStr         shape = func(v ast.Value) bool { _, ok := v.(ast.String); return ok || isNullV(v) }
	isBool        shape = func(v ast.Value) bool { _, ok := v.(ast.Boolean); return ok || isNullV(v) }
	isArray       shape = func(v ast.Value) bool { _, ok := v.(*ast.Array); return ok || isNullV(v) }
	isObject      shape = func(v ast.Value) bool { _, ok := v.(ast.Object); return ok || isNullV(v) }
	sensitiveFlag       = objectOf(member("sensitive", isBool)) // an output or variable: sensitive is a boolean

	changeShape = objectOf(
		member("actions", arrayOf(isStr)),
		member("importing", objectOf(member("id", isStr), member("unknown", isBool))),
		member("generated_config", isStr),
		member("replace_paths", isArray),
	)
	resourceChangeShape = objectOf(
		member("address", isStr), member("previous_address", isStr), member("module_address", isStr),
		member("mode", isStr), member("type", isStr), member("name", isStr), member("provider_name", isStr),
		member("deposed", isStr), member("action_reason", isStr), member("change", changeShape),
	)
)

var topShapes = map[string]shape{
	"format_version": isStr, "terraform_version": isStr, "timestamp": isStr,
	"errored": isBool, "complete": isBool, "applyable": isBool,
	"resource_changes": arrayOf(resourceChangeShape),
	"resource_drift":   arrayOf(resourceChangeShape),
	"deferred_changes": arrayOf(objectOf(member("reason", isStr), member("resource_change", resourceChangeShape))),
	"action_invocations": arrayOf(objectOf(member("address", isStr), member("type", isStr), member("name", isStr),
		member("provider_name", isStr))),
	"output_changes":      mapOf(changeShape),
	"relevant_attributes": arrayOf(objectOf(member("resource", isStr), member("attribute", isArray))),
	"variables":           mapOf(isObject),
	"planned_values":      objectOf(member("outputs", mapOf(sensitiveFlag))),
	"prior_state":         objectOf(member("values", objectOf(member("outputs", mapOf(sensitiveFlag))))),
	"configuration":       objectOf(member("root_module", objectOf(member("variables", mapOf(sensitiveFlag))))),
}

func isNullV(v ast.Value) bool {
	_, ok := v.(ast.Null)
	return ok
}

type memberShape struct {
	key   *ast.Term
	shape shape
}

func member(key string, c shape) memberShape { return memberShape{ast.StringTerm(key), c} }

// objectOf: an objectOf whose listed fields, where present, pass their checks.
func objectOf(fields ...memberShape) shape {
	return func(v ast.Value) bool {
		o, ok := v.(ast.Object)
		if !ok {
			return isNullV(v)
		}
		for _, f := range fields {
			if t := o.Get(f.key); t != nil && !f.shape(t.Value) {
				return false
			}
		}
		return true
	}
}

// arrayOf: an array whose every element passes elem.
func arrayOf(elem shape) shape {
	return func(v ast.Value) bool {
		a, ok := v.(*ast.Array)
		if !ok {
			return isNullV(v)
		}
		for i := range a.Len() {
			if !elem(a.Elem(i).Value) {
				return false
			}
		}
		return true
	}
}

// mapOf: an objectOf whose every value passes elem.
func mapOf(elem shape) shape {
	return func(v ast.Value) bool {
		o, ok := v.(ast.Object)
		if !ok {
			return isNullV(v)
		}
		good := true
		o.Foreach(func(_, e *ast.Term) { good = good && elem(e.Value) })
		return good
	}
}
