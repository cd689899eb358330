package plan

import (
	"bytes"
	"encoding/json"
)

// The document-wide harvest as it was written over encoding/json's generic values, before
// the document was decoded once into OPA values (harvestvalue.go). It stays as the
// reference the value harvest is held to (TestHarvestValueMatchesReference).

// document harvests every values tree paired with its markers tree anywhere in a plan
// JSON document — resource changes, drift, deferred changes, prior_state, planned_values,
// action invocations, outputs, and whatever later formats add in the same shape — plus the
// values of objects that say "sensitive": true (outputs in state and configuration,
// variables' defaults) and the literals callers pass to a module's sensitive variables.
// It goes by structure, not by a list of places. A document that is not JSON adds nothing:
// Decode reports it.
func (h *harvest) referenceDocument(data []byte) {
	dec := json.NewDecoder(bytes.NewReader(bytes.TrimPrefix(data, utf8BOM)))
	dec.UseNumber()
	var doc any
	if dec.Decode(&doc) != nil {
		return
	}
	h.walk(doc)
}

func (h *harvest) walk(v any) {
	switch t := v.(type) {
	case []any:
		for _, e := range t {
			h.walk(e)
		}
	case map[string]any:
		for k, e := range t {
			mk, ok := markerPairs[k]
			if !ok {
				mk = k + "_sensitive"
			}
			if marker, ok := t[mk]; ok {
				h.pair(e, marker)
			}
			h.walk(e)
		}
		if isTrue(t["sensitive"]) {
			h.collect(t["value"], true, true)
			h.collect(t["default"], true, true)
			h.constants(t["expression"])
		}
		if calls, ok := t["module_calls"].(map[string]any); ok {
			for _, c := range calls {
				h.moduleCall(c)
			}
		}
	}
}

// moduleCall harvests the constant arguments of a module call (configuration JSON) that
// set variables the module declares sensitive.
func (h *harvest) moduleCall(c any) {
	call, _ := c.(map[string]any)
	module, _ := call["module"].(map[string]any)
	vars, _ := module["variables"].(map[string]any)
	exprs, _ := call["expressions"].(map[string]any)
	for name, v := range vars {
		if decl, _ := v.(map[string]any); isTrue(decl["sensitive"]) {
			h.constants(exprs[name])
		}
	}
}

// constants harvests every constant_value in a configuration expression (nested blocks
// hold lists of expression objects).
func (h *harvest) constants(expr any) {
	switch t := expr.(type) {
	case []any:
		for _, e := range t {
			h.constants(e)
		}
	case map[string]any:
		for k, e := range t {
			if k == "constant_value" {
				h.collect(e, true, true)
			} else if k != "references" {
				h.constants(e)
			}
		}
	}
}
