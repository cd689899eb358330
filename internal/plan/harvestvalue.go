package plan

import (
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
)

// The document-wide harvest (see harvest) over the decoded document, an OPA value: the
// same rules as the harvest of a typed plan's values (pair, collect), on ast values.

var (
	sensitiveTerm   = ast.StringTerm("sensitive")
	valueTerm       = ast.StringTerm("value")
	defaultTerm     = ast.StringTerm("default")
	expressionTerm  = ast.StringTerm("expression")
	moduleCallsTerm = ast.StringTerm("module_calls")
	moduleTerm      = ast.StringTerm("module")
	variablesTerm   = ast.StringTerm("variables")
	expressionsTerm = ast.StringTerm("expressions")

	beforeTerm, beforeSensitiveTerm = ast.StringTerm("before"), ast.StringTerm("before_sensitive")
	afterTerm, afterSensitiveTerm   = ast.StringTerm("after"), ast.StringTerm("after_sensitive")
)

// isMarkerKey reports whether a key names a markers tree.
func isMarkerKey(k string) bool {
	return strings.HasSuffix(k, "_sensitive") || k == "sensitive_values" || k == "config_sensitive"
}

// markerOf is the key of k's markers tree.
func markerOf(k string) string {
	if mk, ok := markerPairs[k]; ok {
		return mk
	}
	return k + "_sensitive"
}

// walkValue harvests every values tree paired with its markers tree under v, the values of
// objects that say "sensitive": true, and the sensitive arguments of module calls (see
// the reference harvest over encoding/json values, harvest_reference_test.go).
func (h *harvest) walkValue(v ast.Value) {
	switch t := v.(type) {
	case *ast.Array:
		for i := range t.Len() {
			h.walkValue(t.Elem(i).Value)
		}
	case ast.Object:
		// Most objects pair nothing: look markers up only where a key names one.
		markers := false
		t.Foreach(func(k, e *ast.Term) {
			if s, ok := k.Value.(ast.String); ok && isMarkerKey(string(s)) {
				markers = true
			}
			h.walkValue(e.Value)
		})
		if markers {
			t.Foreach(func(k, e *ast.Term) {
				s, ok := k.Value.(ast.String)
				if !ok {
					return
				}
				if m := t.Get(ast.StringTerm(markerOf(string(s)))); m != nil {
					h.pairValue(e.Value, m.Value)
				}
			})
		}
		if isTrueValue(get(t, sensitiveTerm)) {
			h.collectValue(get(t, valueTerm), ast.Boolean(true), true)
			h.collectValue(get(t, defaultTerm), ast.Boolean(true), true)
			h.constantsValue(get(t, expressionTerm))
		}
		if calls, ok := get(t, moduleCallsTerm).(ast.Object); ok {
			calls.Foreach(func(_, c *ast.Term) { h.moduleCallValue(c.Value) })
		}
	}
}

func get(obj ast.Object, k *ast.Term) ast.Value {
	if t := obj.Get(k); t != nil {
		return t.Value
	}
	return nil
}

// moduleCallValue harvests the constant arguments of a module call that set variables the
// module declares sensitive.
func (h *harvest) moduleCallValue(c ast.Value) {
	call, _ := c.(ast.Object)
	if call == nil {
		return
	}
	module, _ := get(call, moduleTerm).(ast.Object)
	if module == nil {
		return
	}
	vars, _ := get(module, variablesTerm).(ast.Object)
	exprs, _ := get(call, expressionsTerm).(ast.Object)
	if vars == nil || exprs == nil {
		return
	}
	vars.Foreach(func(name, decl *ast.Term) {
		if d, ok := decl.Value.(ast.Object); ok && isTrueValue(get(d, sensitiveTerm)) {
			h.constantsValue(get(exprs, name))
		}
	})
}

// constantsValue harvests every constant_value in a configuration expression.
func (h *harvest) constantsValue(expr ast.Value) {
	switch t := expr.(type) {
	case *ast.Array:
		for i := range t.Len() {
			h.constantsValue(t.Elem(i).Value)
		}
	case ast.Object:
		t.Foreach(func(k, e *ast.Term) {
			switch k.Value.Compare(ast.String("constant_value")) {
			case 0:
				h.collectValue(e.Value, ast.Boolean(true), true)
			default:
				if k.Value.Compare(ast.String("references")) != 0 {
					h.constantsValue(e.Value)
				}
			}
		})
	}
}

// changeValue harvests both sides of a change object, whether or not it carries markers
// (see change).
func (h *harvest) changeValue(c ast.Value) {
	obj, ok := c.(ast.Object)
	if !ok {
		return
	}
	h.pairValue(get(obj, beforeTerm), get(obj, beforeSensitiveTerm))
	h.pairValue(get(obj, afterTerm), get(obj, afterSensitiveTerm))
}

// pairValue harvests one values tree with its markers (see pair).
func (h *harvest) pairValue(v, marker ast.Value) {
	if obj, ok := v.(ast.Object); ok && !isTrueValue(marker) {
		obj.Foreach(func(k, _ *ast.Term) {
			if s, ok := k.Value.(ast.String); ok {
				h.attrs[string(s)] = true
			}
		})
	}
	h.collectValue(v, marker, false)
}

// collectValue walks v alongside its marker, collecting the leaves under a true marker and
// the keys of maps under one (see collect).
func (h *harvest) collectValue(v, marker ast.Value, under bool) {
	under = under || isTrueValue(marker)
	if !under && !hasTrueShallowValue(marker) {
		return
	}
	switch t := v.(type) {
	case ast.String:
		if under {
			h.values[string(t)] = struct{}{}
		}
	case ast.Number:
		if under {
			h.values[string(t)] = struct{}{}
		}
	case *ast.Array:
		for i := range t.Len() {
			h.collectValue(t.Elem(i).Value, indexValue(marker, i), under)
		}
	case ast.Object:
		t.Foreach(func(k, e *ast.Term) {
			s, ok := k.Value.(ast.String)
			if !ok {
				return
			}
			if under {
				h.keys[string(s)] = struct{}{}
			}
			h.collectValue(e.Value, fieldValue(marker, k), under)
		})
	}
}

func isTrueValue(m ast.Value) bool {
	b, ok := m.(ast.Boolean)
	return ok && bool(b)
}

// hasTrueShallowValue is hasTrueShallow: only compound markers or true can mark anything.
func hasTrueShallowValue(m ast.Value) bool {
	switch t := m.(type) {
	case ast.Boolean:
		return bool(t)
	case *ast.Array:
		return t.Len() > 0
	case ast.Object:
		return t.Len() > 0
	}
	return false
}

func fieldValue(m ast.Value, k *ast.Term) ast.Value {
	switch t := m.(type) {
	case ast.Boolean:
		return t
	case ast.Object:
		return get(t, k)
	}
	return nil
}

func indexValue(m ast.Value, i int) ast.Value {
	switch t := m.(type) {
	case ast.Boolean:
		return t
	case *ast.Array:
		if i < t.Len() {
			return t.Elem(i).Value
		}
	}
	return nil
}
