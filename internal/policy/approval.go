package policy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/open-policy-agent/opa/v1/rego"
)

// Approval rules: a rule named approval (exactly: approval_x is a helper like any other) in
// any package says how
// many approvals a plan needs and from whom. Its value is an object, or a set (or array)
// of objects:
//
//	{"required": 2, "teams": ["acme/platform"], "reasons": ["prod", "destroys 1"]}
//	{"required": 1, "lower": true, "reasons": ["tags only"]}
//
// required (a whole number, 0 or more) is mandatory; teams (owner teams "org/team" or
// logins, each of which must approve), reasons (strings, for people) and lower (a boolean)
// are optional; any other key is an error, so a misspelt key never goes unnoticed. Every
// object of every approval rule that is defined counts: the largest required wins, the
// teams are united, the reasons concatenated. The policies may lower the count below the
// configured min_approvals only when every object says lower: true (the gate decides; see
// Approval.Lower). A value that is not of this shape is an evaluation error: the plan is
// refused, never let through on fewer approvals.

// Approval is what the approval rules decided for one plan; nil in a Result when no
// approval rule is defined for it.
type Approval struct {
	// Required is the largest count an approval object asked for.
	Required int `json:"required"`
	// Lower is set when every object said lower: true: the count may go below the
	// configured min_approvals (never below one approval, nor below the destroy tier).
	Lower bool `json:"lower,omitempty"`
	// Teams are the owners ("org/team" or a login, without "@") who must each approve,
	// sorted, without duplicates (case is ignored).
	Teams []string `json:"teams,omitempty"`
	// Reasons say why, in rule order, without duplicates.
	Reasons []string `json:"reasons,omitempty"`
	// Rules are the rules that decided ("data.pkg.approval"), sorted.
	Rules []string `json:"rules"`
}

// approvalName matches the name of approval rules. Only the bare name: a policy's helpers
// (approval_settings) must not become rules.
var approvalName = regexp.MustCompile(`^approval$`)

// ownerName is a login or an "org/team" slug as GitHub allows them.
var ownerName = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:/[A-Za-z0-9._-]+)?$`)

// maxRequired bounds a count: more approvals than any review could gather is a mistake.
const maxRequired = 100

// evalApprovals evaluates every approval rule, one query each (so an error names its rule),
// and combines what they decided. Nil when none is defined.
func (e *Engine) evalApprovals(ctx context.Context, opts []rego.EvalOption) (*Approval, error) {
	var (
		out  *Approval
		errs []error
	)
	for _, r := range e.approvals {
		rs, err := r.query.Eval(ctx, opts...)
		if ctx.Err() != nil {
			return nil, nil // the caller says why
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s.%s: %w", r.pkg, r.name, err))
			continue
		}
		if len(rs) == 0 || len(rs[0].Expressions) == 0 {
			continue // undefined: this rule says nothing about this plan
		}
		objs, err := approvalObjects(rs[0].Expressions[0].Value)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s.%s: %w", r.pkg, r.name, err))
			continue
		}
		if len(objs) == 0 {
			continue
		}
		if out == nil {
			out = &Approval{Lower: true}
		}
		out.add(r.pkg+"."+r.name, objs)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if out != nil {
		slices.Sort(out.Rules)
		slices.SortFunc(out.Teams, func(a, b string) int { return strings.Compare(strings.ToLower(a), strings.ToLower(b)) })
	}
	return out, nil
}

// approvalObject is one validated approval object.
type approvalObject struct {
	required int
	lower    bool
	teams    []string
	reasons  []string
}

func (a *Approval) add(rule string, objs []approvalObject) {
	a.Rules = append(a.Rules, rule)
	for _, o := range objs {
		a.Required = max(a.Required, o.required)
		a.Lower = a.Lower && o.lower
		for _, t := range o.teams {
			if !slices.ContainsFunc(a.Teams, func(have string) bool { return strings.EqualFold(have, t) }) {
				a.Teams = append(a.Teams, t)
			}
		}
		for _, r := range o.reasons {
			if !slices.Contains(a.Reasons, r) {
				a.Reasons = append(a.Reasons, r)
			}
		}
	}
}

// approvalObjects reads a rule's value: one object, or a set or array of objects.
func approvalObjects(v any) ([]approvalObject, error) {
	switch x := v.(type) {
	case map[string]any:
		o, err := approvalObjectOf(x)
		if err != nil {
			return nil, err
		}
		return []approvalObject{o}, nil
	case []any:
		out := make([]approvalObject, 0, len(x))
		for _, el := range x {
			m, ok := el.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("an approval must be an object {\"required\": N, \"teams\": [...], \"reasons\": [...]}, got %s", kind(el))
			}
			o, err := approvalObjectOf(m)
			if err != nil {
				return nil, err
			}
			out = append(out, o)
		}
		return out, nil
	}
	return nil, fmt.Errorf("an approval must be an object {\"required\": N, \"teams\": [...], \"reasons\": [...]} or a set of them, got %s", kind(v))
}

func approvalObjectOf(m map[string]any) (approvalObject, error) {
	var o approvalObject
	for k := range m {
		if !slices.Contains([]string{"required", "teams", "reasons", "lower"}, k) {
			return o, fmt.Errorf("approval key %q is not one of required, teams, reasons, lower", k)
		}
	}
	n, ok := m["required"].(json.Number)
	if !ok {
		return o, fmt.Errorf("approval \"required\" must be a whole number, got %s", kind(m["required"]))
	}
	req, err := n.Int64()
	if err != nil || req < 0 || req > maxRequired {
		return o, fmt.Errorf("approval \"required\" must be a whole number from 0 to %d, got %s", maxRequired, n)
	}
	o.required = int(req)
	if l, has := m["lower"]; has {
		if o.lower, ok = l.(bool); !ok {
			return o, fmt.Errorf("approval \"lower\" must be a boolean, got %s", kind(l))
		}
	}
	if o.teams, err = stringList(m, "teams"); err != nil {
		return o, err
	}
	for i, t := range o.teams {
		t = strings.TrimPrefix(t, "@")
		if !ownerName.MatchString(t) {
			return o, fmt.Errorf("approval team %q is neither a login nor \"org/team\"", t)
		}
		o.teams[i] = t
	}
	if o.reasons, err = stringList(m, "reasons"); err != nil {
		return o, err
	}
	return o, nil
}

// stringList reads m[key], a list of strings (absent: none).
func stringList(m map[string]any, key string) ([]string, error) {
	v, has := m[key]
	if !has {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("approval %q must be a list of strings, got %s", key, kind(v))
	}
	out := make([]string, 0, len(list))
	for _, el := range list {
		s, ok := el.(string)
		if !ok {
			return nil, fmt.Errorf("approval %q must be a list of strings, one is %s", key, kind(el))
		}
		out = append(out, s)
	}
	return out, nil
}

// kind names a value's JSON type for messages.
func kind(v any) string {
	switch x := v.(type) {
	case nil:
		return "null (or missing)"
	case string:
		return fmt.Sprintf("the string %q", x)
	case json.Number:
		return "the number " + x.String()
	case bool:
		return fmt.Sprintf("the boolean %t", x)
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}
