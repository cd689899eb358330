package plan

import (
	"encoding/json"
	"slices"
	"strconv"

	tfjson "github.com/hashicorp/terraform-json"

	"github.com/tfgate/tfgate/internal/secret"
)

// newMasker is the base masker (configured and environment secrets) plus every value
// terraform marked sensitive anywhere in the plan.
//
// The harvest exists because terraform's markers do not follow values everywhere: a value
// marked sensitive in one attribute can appear unmarked in another (terraform_data.output
// in Terraform 1.5 copies a sensitive input without the marker). Masking every marked
// literal closes that gap.
func newMasker(base *secret.Masker, harvested map[string]struct{}) *secret.Masker {
	values := make([]string, 0, len(harvested))
	for s := range harvested {
		values = append(values, s)
	}
	slices.Sort(values) // deterministic
	return base.With(values...)
}

// harvest collects the literal values of everything marked sensitive in the plan.
func harvest(p *planView) map[string]struct{} {
	out := map[string]struct{}{}
	add := func(c *tfjson.Change) {
		if c == nil {
			return
		}
		collectSensitive(c.Before, c.BeforeSensitive, false, out)
		collectSensitive(c.After, c.AfterSensitive, false, out)
	}
	for _, rc := range p.resources {
		if rc != nil {
			add(rc.Change)
		}
	}
	for _, rc := range p.drift {
		if rc != nil {
			add(rc.Change)
		}
	}
	for _, v := range p.sensitiveVars {
		if v != nil {
			collectSensitive(v.Value, true, true, out)
		}
	}
	for name, c := range p.outputs {
		if c == nil {
			continue
		}
		add(c)
		if p.outputSensitive(name) {
			collectSensitive(c.Before, true, false, out)
			collectSensitive(c.After, true, false, out)
		}
	}
	return out
}

// collectSensitive walks v alongside its marker, collecting leaves under a true marker.
func collectSensitive(v, marker any, under bool, out map[string]struct{}) {
	under = under || isTrue(marker)
	if !under && !hasTrueShallow(marker) {
		return
	}
	switch t := v.(type) {
	case string:
		if under {
			out[t] = struct{}{}
		}
	case json.Number:
		if under {
			out[string(t)] = struct{}{}
		}
	case float64:
		if under {
			out[strconv.FormatFloat(t, 'f', -1, 64)] = struct{}{}
		}
	case []any:
		for i, e := range t {
			collectSensitive(e, index(marker, i), under, out)
		}
	case map[string]any:
		for k, e := range t {
			collectSensitive(e, field(marker, k), under, out)
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
