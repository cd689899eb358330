package plan

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	tfjson "github.com/hashicorp/terraform-json"

	"github.com/tfgate/tfgate/internal/secret"
)

// minHarvested is the shortest sensitive value that is also masked where it appears
// unmarked. Shorter values ("on", "1") would garble unrelated text and are weak secrets
// anyway; they are still redacted wherever terraform marks them.
const minHarvested = 4

// masker replaces secret literals (configured masks, plus every value terraform marked
// sensitive anywhere in the plan) wherever they occur.
//
// The harvest exists because terraform's markers do not follow values everywhere: a value
// marked sensitive in one attribute can appear unmarked in another (terraform_data.output
// in Terraform 1.5 copies a sensitive input without the marker). Masking every marked
// literal closes that gap.
type masker struct {
	r *strings.Replacer
}

func (m *masker) apply(s string) string {
	if m == nil || m.r == nil || s == "" {
		return s
	}
	return m.r.Replace(s)
}

func newMasker(explicit []string, harvested map[string]struct{}) *masker {
	secrets := make([]string, 0, len(explicit)+len(harvested))
	for _, s := range explicit {
		if s != "" {
			secrets = append(secrets, s)
		}
	}
	for s := range harvested {
		secrets = append(secrets, s)
	}
	// Also the escaped spellings: text derived from the plan elsewhere (a policy message
	// formatting an object, JSON output) writes `a"b` as `a\"b`.
	for _, s := range secrets {
		for _, e := range secret.EscapedForms(s) {
			if e != s {
				secrets = append(secrets, e)
			}
		}
	}
	if len(secrets) == 0 {
		return &masker{}
	}
	// Longest first, so a secret that contains another is masked whole.
	slices.SortFunc(secrets, func(a, b string) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a, b)
	})
	secrets = slices.Compact(secrets)
	pairs := make([]string, 0, 2*len(secrets))
	for _, s := range secrets {
		pairs = append(pairs, s, TextMasked)
	}
	return &masker{r: strings.NewReplacer(pairs...)}
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
		if under && len(t) >= minHarvested {
			out[t] = struct{}{}
		}
	case json.Number:
		if under && len(t) >= minHarvested {
			out[string(t)] = struct{}{}
		}
	case float64:
		if s := strconv.FormatFloat(t, 'f', -1, 64); under && len(s) >= minHarvested {
			out[s] = struct{}{}
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
