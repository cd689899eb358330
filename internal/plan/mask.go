package plan

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"

	tfjson "github.com/hashicorp/terraform-json"

	"github.com/tfgate/tfgate/internal/secret"
)

// harvest collects the literals terraform marked sensitive in a plan, to be masked wherever
// else they appear.
//
// The harvest exists because terraform's markers do not follow values everywhere: a value
// marked sensitive in one place can appear unmarked in another (terraform_data.output in
// Terraform 1.5 copies a sensitive input without the marker), and policies read the whole
// plan — prior_state, planned_values, configuration — not only what tfgate renders. The
// document-wide half walks the document decoded once into OPA values (harvestvalue.go, by
// Open); the half here walks a typed plan's changes (Summarise).
type harvest struct {
	values map[string]struct{}
	// keys are the keys of maps marked sensitive as a whole: inside a sensitive container
	// everything is secret, keys included.
	keys map[string]struct{}
	// attrs are the top-level attribute names of objects whose values are not marked
	// sensitive as a whole: schema vocabulary ("input", "password"), shown by every
	// rendering, never masked as a key.
	attrs map[string]bool
	// objs are values trees whose top-level keys belong in attrs, put there by foldAttrs
	// when attrs are read: attrs matter only when a sensitive map's keys were harvested,
	// and most plans have none.
	objs []map[string]any
}

func newHarvest() *harvest {
	return &harvest{values: map[string]struct{}{}, keys: map[string]struct{}{}, attrs: map[string]bool{}}
}

// reset empties h, keeping its room.
func (h *harvest) reset() {
	clear(h.values)
	clear(h.keys)
	clear(h.attrs)
	clear(h.objs)
	h.objs = h.objs[:0]
}

// foldAttrs puts the keys of the objects pair saw into attrs.
func (h *harvest) foldAttrs() {
	for _, obj := range h.objs {
		for k := range obj {
			h.attrs[k] = true
		}
	}
	clear(h.objs)
	h.objs = h.objs[:0]
}

// merge adds what another harvest found.
func (h *harvest) merge(o *harvest) {
	maps.Copy(h.values, o.values)
	maps.Copy(h.keys, o.keys)
	h.objs = append(h.objs, o.objs...)
	for k, v := range o.attrs {
		h.attrs[k] = h.attrs[k] || v
	}
}

// newMasker is the base masker (configured and environment secrets) plus every value and
// key terraform marked sensitive anywhere in the plan.
func newMasker(base *secret.Masker, h *harvest) *secret.Masker {
	if h == nil {
		return base.With()
	}
	if len(h.keys) > 0 {
		h.foldAttrs()
	}
	// Without harvested keys attrs mask nothing out: drop the objects rather than keep the
	// plan's values alive with the harvest. (A later harvested key could then be masked
	// even where it is an attribute name: more masking, never less.)
	clear(h.objs)
	h.objs = nil
	values := make([]string, 0, len(h.values)+len(h.keys))
	for s := range h.values {
		values = append(values, s)
	}
	for k := range h.keys {
		if !h.attrs[k] {
			values = append(values, k)
		}
	}
	slices.Sort(values) // deterministic
	return base.With(values...)
}

// markerPairs names the markers tree of each values tree in plan JSON, where the marker's
// name is not the value's plus "_sensitive" (before/before_sensitive, after/after_sensitive).
var markerPairs = map[string]string{
	"values":        "sensitive_values", // state resources (prior_state, planned_values)
	"config_values": "config_sensitive", // action_invocations
}

// pair harvests one values tree with its markers.
func (h *harvest) pair(v, marker any) {
	if obj, ok := v.(map[string]any); ok && len(obj) > 0 && !isTrue(marker) {
		h.objs = append(h.objs, obj)
	}
	h.collect(v, marker, false)
}

// change harvests both sides of a decoded change.
func (h *harvest) change(c *tfjson.Change) {
	if c == nil {
		return
	}
	h.pair(c.Before, c.BeforeSensitive)
	h.pair(c.After, c.AfterSensitive)
}

// plan harvests what a decoded plan holds (Summarise's view: resource changes, drift,
// outputs, sensitive root variables). Read adds the rest of the document.
func (h *harvest) plan(p *planView) {
	for _, rc := range p.resources {
		if rc != nil {
			h.change(rc.Change)
		}
	}
	for _, rc := range p.drift {
		if rc != nil {
			h.change(rc.Change)
		}
	}
	for _, v := range p.sensitiveVars {
		if v != nil {
			h.collect(v.Value, true, true)
		}
	}
	for name, c := range p.outputs {
		if c == nil {
			continue
		}
		h.change(c)
		if p.outputSensitive(name) {
			h.collect(c.Before, true, false)
			h.collect(c.After, true, false)
		}
	}
}

// collect walks v alongside its marker, collecting the leaves under a true marker, and the
// keys of maps under one.
func (h *harvest) collect(v, marker any, under bool) {
	under = under || isTrue(marker)
	if !under && !hasTrueShallow(marker) {
		return
	}
	switch t := v.(type) {
	case string:
		if under {
			h.values[t] = struct{}{}
		}
	case json.Number:
		if under {
			h.values[string(t)] = struct{}{}
		}
	case float64:
		if under {
			h.values[strconv.FormatFloat(t, 'f', -1, 64)] = struct{}{}
		}
	case []any:
		if !under {
			h.collectMarked(t, marker)
			return
		}
		for _, e := range t {
			h.collect(e, true, true)
		}
	case map[string]any:
		if !under {
			h.collectMarked(t, marker)
			return
		}
		for k, e := range t {
			h.keys[k] = struct{}{}
			h.collect(e, true, true)
		}
	}
}

// collectMarked is collect of a list or map not under a true marker: only the parts its
// marker marks can hold anything, so the (smaller) marker is walked, not the value.
func (h *harvest) collectMarked(v, marker any) {
	switch m := marker.(type) {
	case []any:
		if l, ok := v.([]any); ok {
			for i, mi := range m[:min(len(m), len(l))] {
				h.collect(l[i], mi, false)
			}
		}
	case map[string]any:
		if obj, ok := v.(map[string]any); ok {
			for k, mk := range m {
				if e, ok := obj[k]; ok {
					h.collect(e, mk, false)
				}
			}
		}
	}
}

// hasTrueShallow is a cheap pre-check: only compound markers or true can mark anything.
func hasTrueShallow(m any) bool {
	switch t := m.(type) {
	case bool:
		return t
	case []any:
		return len(t) > 0
	case map[string]any:
		return len(t) > 0
	}
	return false
}
