package cost

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"strconv"
	"strings"
)

// planChanges is what pricing reads of a `terraform show -json` plan.
type planChanges struct {
	ResourceChanges []struct {
		Address string `json:"address"`
		Mode    string `json:"mode"`
		Type    string `json:"type"`
		Change  struct {
			Actions      []string `json:"actions"`
			Before       any      `json:"before"`
			After        any      `json:"after"`
			AfterUnknown any      `json:"after_unknown"`
		} `json:"change"`
	} `json:"resource_changes"`
}

// Price prices a plan's managed resources with the catalogue: each resource's price as it
// is (change.before) and as the plan leaves it (change.after). Resources that do not exist
// on a side cost nothing there; a resource the catalogue cannot price on a side where it
// exists is unpriced, and counts in neither total.
func (c *Catalogue) Price(planJSON []byte) (*Cost, error) {
	var p planChanges
	dec := json.NewDecoder(bytes.NewReader(planJSON))
	dec.UseNumber()
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("price the plan: %w", err)
	}
	out := &Cost{Source: SourceCatalogue, Currency: c.Currency, Priced: []Priced{}, Unpriced: []Unpriced{}}
	for _, rc := range p.ResourceChanges {
		if rc.Mode != "managed" || (len(rc.Change.Actions) == 1 && rc.Change.Actions[0] == "read") {
			continue
		}
		pr := Priced{Address: rc.Address, Type: rc.Type}
		var before, reason string
		if rc.Change.Before != nil {
			pr.Before, before = c.price(rc.Type, rc.Change.Before, nil)
		}
		if rc.Change.After != nil {
			pr.After, reason = c.price(rc.Type, rc.Change.After, rc.Change.AfterUnknown)
		}
		if reason == "" && before != "" {
			reason = "as it is now: " + before
		}
		if reason != "" {
			out.Unpriced = append(out.Unpriced, Unpriced{Address: rc.Address, Type: rc.Type, Reason: reason})
			continue
		}
		out.Priced = append(out.Priced, pr)
		out.Before += pr.Before
		out.After += pr.After
	}
	return out, nil
}

// price is the monthly price of one object of type typ, or why there is none.
func (c *Catalogue) price(typ string, values, unknown any) (Money, string) {
	typed := false
	var firstPath string
	for _, e := range c.Entries {
		if ok, _ := path.Match(e.Type, typ); !ok {
			continue
		}
		typed = true
		matched := true
		for _, s := range e.Match {
			if firstPath == "" {
				firstPath = s.Path
			}
			if isUnknown(unknown, s.Path) {
				return 0, s.Path + " is known only after apply"
			}
			if v, ok := attribute(values, s.Path); !ok || v != s.Value {
				matched = false
				break
			}
		}
		if matched {
			return e.Monthly, ""
		}
	}
	if !typed {
		return 0, "the price catalogue has no entry for " + typ
	}
	if v, ok := attribute(values, firstPath); ok {
		return 0, fmt.Sprintf("no catalogue entry for %s matches %s = %q", typ, firstPath, v)
	}
	return 0, "no catalogue entry for " + typ + " matches it"
}

// attribute is the value at a dotted path, as text, when it is a string, number or
// boolean.
func attribute(v any, dotted string) (string, bool) {
	for _, k := range strings.Split(dotted, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[k]
		case []any:
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 || i >= len(x) {
				return "", false
			}
			v = x[i]
		default:
			return "", false
		}
	}
	switch x := v.(type) {
	case string:
		return x, true
	case json.Number:
		return x.String(), true
	case bool:
		return strconv.FormatBool(x), true
	}
	return "", false
}

// isUnknown reports whether after_unknown marks the path (or a value above it) unknown.
func isUnknown(unknown any, dotted string) bool {
	v := unknown
	for _, k := range strings.Split(dotted, ".") {
		if b, ok := v.(bool); ok {
			return b
		}
		switch x := v.(type) {
		case map[string]any:
			v = x[k]
		case []any:
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 || i >= len(x) {
				return false
			}
			v = x[i]
		default:
			return false
		}
	}
	b, _ := v.(bool)
	return b
}
