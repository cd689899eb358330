package plan

import (
	"slices"
	"strconv"
	"strings"

	tfjson "github.com/hashicorp/terraform-json"
)

// planView is what Summarise reads from a plan, with output sensitivity looked up in the
// places terraform has put it over the years.
type planView struct {
	resources, drift []*tfjson.ResourceChange
	outputs          map[string]*tfjson.Change
	planned, prior   map[string]*tfjson.StateOutput
	// legacyOutputs: the plan comes from Terraform 0.12 or 0.13, whose output changes say
	// "create" for every output whatever its state (hashicorp/terraform#24628).
	legacyOutputs bool
	// sensitiveVars are the values of root variables declared sensitive (Decode keeps no
	// other variable).
	sensitiveVars map[string]*tfjson.PlanVariable
}

func newView(p *tfjson.Plan) *planView {
	v := &planView{resources: p.ResourceChanges, drift: p.ResourceDrift, outputs: p.OutputChanges, sensitiveVars: p.Variables}
	if p.Config != nil && p.Config.RootModule != nil { // a plan not from Decode: keep the sensitive ones
		v.sensitiveVars = map[string]*tfjson.PlanVariable{}
		for name, cv := range p.Config.RootModule.Variables {
			if cv != nil && cv.Sensitive && p.Variables[name] != nil {
				v.sensitiveVars[name] = p.Variables[name]
			}
		}
	}
	if p.PlannedValues != nil {
		v.planned = p.PlannedValues.Outputs
	}
	if p.PriorState != nil && p.PriorState.Values != nil {
		v.prior = p.PriorState.Values.Outputs
	}
	v.legacyOutputs = legacyOutputs(p.TerraformVersion, p.OutputChanges)
	return v
}

// legacyOutputs reports whether a plan's output changes come from Terraform before 0.14,
// which did not track them: every output is "create", and prior_state holds the values the
// refresh evaluated from the new configuration, not those of the last apply. Terraform 0.14
// and later give real actions (no-op for an unchanged output) but also put the planned
// values of new outputs into prior_state, so there a "create" is always a new output.
// Without a version (hand-made or trimmed plans), the sensitivity markers that 0.14
// introduced on every output change tell the two apart.
func legacyOutputs(version string, changes map[string]*tfjson.Change) bool {
	if major, minor, ok := majorMinor(version); ok {
		return major == 0 && minor < 14
	}
	for _, ch := range changes {
		if ch != nil && (ch.BeforeSensitive != nil || ch.AfterSensitive != nil) {
			return false
		}
	}
	return true
}

// majorMinor parses the start of a version like "1.2.0-rc1" or "0.12.11".
func majorMinor(v string) (major, minor int, ok bool) {
	parts := strings.SplitN(strings.TrimPrefix(v, "v"), ".", 3)
	if len(parts) < 2 {
		return 0, 0, false
	}
	major, err1 := strconv.Atoi(parts[0])
	minor, err2 := strconv.Atoi(strings.TrimRightFunc(parts[1], func(r rune) bool { return r < '0' || r > '9' }))
	return major, minor, err1 == nil && err2 == nil
}

func (v *planView) outputSensitive(name string) bool {
	if o := v.planned[name]; o != nil && o.Sensitive {
		return true
	}
	o := v.prior[name]
	return o != nil && o.Sensitive
}

func (v *planView) knowsOutput(name string) bool {
	return v.planned[name] != nil || v.prior[name] != nil
}

// unchangedOutput spots the outputs of a Terraform 0.12/0.13 plan whose "create" may not be
// a change: the value is known and the one prior_state holds. tfgate cannot tell whether it
// differs from the last apply, so it leaves them out (and says so) rather than listing every
// output of every old plan as new.
func (v *planView) unchangedOutput(name string, ch *tfjson.Change) bool {
	if !v.legacyOutputs {
		return false
	}
	prior := v.prior[name]
	return prior != nil && ch.Before == nil && len(ch.Actions) == 1 && ch.Actions[0] == tfjson.ActionCreate &&
		!hasTrue(ch.AfterUnknown) && equal(normalise(prior.Value), normalise(ch.After))
}

// outputs lists the output changes; unlisted counts the legacy outputs left out.
func outputs(w *writer, v *planView) (out []Output, unlisted int) {
	names := make([]string, 0, len(v.outputs))
	for name := range v.outputs {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		ch := v.outputs[name]
		if ch == nil {
			continue
		}
		action, _ := classify(ch.Actions)
		if action == ActionNoop {
			continue
		}
		if v.unchangedOutput(name, ch) {
			unlisted++
			continue
		}
		o := Output{Name: w.mask.String(name), Action: action}
		unmarked := ch.BeforeSensitive == nil && ch.AfterSensitive == nil && !v.knowsOutput(name)
		if sensitive := v.outputSensitive(name) || isTrue(ch.BeforeSensitive) || isTrue(ch.AfterSensitive); sensitive || unmarked {
			o.Before, o.After = valueSensitive, valueSensitive
			if !sensitive {
				o.Before, o.After = valueHidden, valueHidden // no markers: maybe secret, maybe not
			}
			if ch.Before == nil {
				o.Before = valueNull
			}
			if ch.After == nil && !isTrue(ch.AfterUnknown) {
				o.After = valueNull
			}
		} else {
			// Either side's nested markers hide the value on both sides.
			sens := union(ch.BeforeSensitive, ch.AfterSensitive)
			o.Before = w.value(ch.Before, sens, nil)
			o.After = w.value(ch.After, sens, ch.AfterUnknown)
		}
		out = append(out, o)
	}
	return out, unlisted
}

// union merges two markers of the same shape: marked in either is marked.
func union(a, b any) any {
	if isTrue(a) || isTrue(b) {
		return true
	}
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			return a
		}
		m := make(map[string]any, len(x)+len(y))
		for k, v := range x {
			m[k] = union(v, y[k])
		}
		for k, v := range y {
			if _, done := m[k]; !done {
				m[k] = v
			}
		}
		return m
	case []any:
		y, ok := b.([]any)
		if !ok {
			return a
		}
		l := make([]any, max(len(x), len(y)))
		for i := range l {
			l[i] = union(elem(x, i), elem(y, i))
		}
		return l
	}
	if b != nil {
		return b
	}
	return a
}
