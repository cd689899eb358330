package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"

	tfjson "github.com/hashicorp/terraform-json"

	"github.com/tfgate/tfgate/internal/gate"
	"github.com/tfgate/tfgate/internal/report"
	"github.com/tfgate/tfgate/internal/stage"
	"github.com/tfgate/tfgate/internal/terraform"
)

// Recognising a plan an earlier run applied. Terraform refuses a saved plan as stale when
// the state's lineage or serial moved since the plan was made — and applying it moves
// both. So a re-run of a successful apply (the obvious remedy when GitHub was down right
// after it, or a catch-up run meeting a merge that a cancelled run had applied) meets a
// "stale" plan that is in fact its own. It is recognised by the state itself, never by a
// record on GitHub (which may be the very thing that is missing), nor by tfgate's apply
// record (apply_record.go), which says only that an apply was cut off, never that one
// finished. The state must continue the plan's prior state (same lineage, or the plan was
// made before any state existed, and a higher serial), hold every change of the plan — each
// object it creates, updates, imports or moves with the planned value of each attribute
// known at plan time, at its new address and not at the old one; each object it deletes
// or forgets gone; each root output with its planned value where known (sensitive ones
// too, compared and never shown) — and show at least one was made: gate.AlreadyApplied
// judges. A plan whose changes someone else undid or changed since is stale, as before;
// so is one whose changes no state could show (only an output unknown at plan time, or
// nothing), which would otherwise "hold" in any later state.

// appliedBefore reports whether the state shows that an earlier run applied r's saved plan
// (see above): already, a sentence saying how tfgate knows, or "" and why not.
func appliedBefore(ctx context.Context, r *stage.ProjectRun) (already, why string, err error) {
	f, err := planInState(ctx, r)
	if err != nil {
		return "", "", err
	}
	already, why = gate.AlreadyApplied(f)
	return already, why, nil
}

// planInState compares the state terraform holds now with r's saved plan, change by change
// once the state continues the plan's prior state.
func planInState(ctx context.Context, r *stage.ProjectRun) (gate.PlanInState, error) {
	var f gate.PlanInState
	prior, err := terraform.PlanPriorState(r.PlanFile)
	if err != nil {
		return f, err
	}
	raw, err := r.TF.StatePull(ctx)
	if err != nil {
		return f, err
	}
	cur, err := terraform.ReadStateMeta(bytes.NewReader(raw))
	if err != nil {
		return f, fmt.Errorf("the state terraform pulled: %w", err)
	}
	f.PriorSerial, f.Serial = prior.Serial, cur.Serial
	if prior.Lineage != "" && prior.Lineage != cur.Lineage || cur.Serial <= prior.Serial {
		return f, nil
	}
	f.Continues = true
	planRaw, err := r.TF.ShowPlan(ctx, r.PlanFile)
	if err != nil {
		return f, err
	}
	var p tfjson.Plan
	if err := json.Unmarshal(planRaw, &p); err != nil {
		return f, fmt.Errorf("read the saved plan: %w", err)
	}
	stateRaw, err := r.TF.ShowState(ctx)
	if err != nil {
		return f, err
	}
	var st tfjson.State
	if err := json.Unmarshal(stateRaw, &st); err != nil {
		return f, fmt.Errorf("read the current state: %w", err)
	}
	f.Changes = compareChanges(&p, &st)
	return f, nil
}

// compareChanges is how the state stands against each resource and root output change of
// the plan (see above).
func compareChanges(p *tfjson.Plan, st *tfjson.State) []gate.PlanChange {
	objects := map[string]*tfjson.StateResource{}
	var outputs map[string]*tfjson.StateOutput
	if st.Values != nil {
		collectResources(st.Values.RootModule, objects)
		outputs = st.Values.Outputs
	}
	var out []gate.PlanChange
	for _, rc := range p.ResourceChanges {
		out = append(out, gate.PlanChange{What: rc.Address, Held: resourceHeld(rc, objects)})
	}
	for _, name := range slices.Sorted(maps.Keys(p.OutputChanges)) {
		out = append(out, gate.PlanChange{What: "output " + name, Held: outputHeld(p.OutputChanges[name], outputs[name])})
	}
	return out
}

// resourceHeld is how the state stands against one resource change: an object the plan
// creates, imports or moves must be at its address with the planned known values (and no
// longer at the address it moves from), an object it deletes or forgets gone. A deposed
// object, or an action it does not know, cannot be checked.
func resourceHeld(rc *tfjson.ResourceChange, objects map[string]*tfjson.StateResource) gate.Held {
	c := rc.Change
	if c == nil || rc.Mode == tfjson.DataResourceMode || c.Actions.Read() {
		return gate.HeldNothing
	}
	moved := rc.PreviousAddress != "" && rc.PreviousAddress != rc.Address
	if c.Actions.NoOp() && !moved && c.Importing == nil {
		return gate.HeldNothing
	}
	if rc.DeposedKey != "" {
		return gate.HeldUnchecked
	}
	if _, there := objects[rc.PreviousAddress]; moved && there {
		return gate.HeldNot
	}
	obj, exists := objects[rc.Address]
	switch acts := c.Actions; {
	case acts.Delete(), acts.Forget():
		if exists {
			return gate.HeldNot
		}
		return gate.HeldShown
	case acts.NoOp(), acts.Create(), acts.Update(), acts.Replace():
		if !exists || !knownValuesMatch(c.After, c.AfterUnknown, obj.AttributeValues) {
			return gate.HeldNot
		}
	default:
		return gate.HeldUnchecked
	}
	switch {
	case c.Actions.Create(), moved, c.Importing != nil, knownChange(c),
		c.Actions.Replace() && replaced(c, obj.AttributeValues):
		return gate.HeldShown
	}
	return gate.HeldUnshown
}

// outputHeld is how the state's root output stands against the plan's change of it: gone
// when the plan deletes it, else its planned value, compared only when known (a sensitive
// value too: it is compared, never shown).
func outputHeld(c *tfjson.Change, out *tfjson.StateOutput) gate.Held {
	switch acts := c.Actions; {
	case acts.NoOp():
		return gate.HeldNothing
	case acts.Delete():
		if out != nil {
			return gate.HeldNot
		}
		return gate.HeldShown
	case !acts.Create() && !acts.Update():
		return gate.HeldUnchecked
	}
	if hasUnknown(c.AfterUnknown) {
		return gate.HeldUnshown
	}
	var got any // terraform keeps no null output
	if out != nil {
		got = out.Value
	}
	switch {
	case !reflect.DeepEqual(c.After, got):
		return gate.HeldNot
	case reflect.DeepEqual(c.Before, c.After):
		return gate.HeldUnshown
	}
	return gate.HeldShown
}

func collectResources(m *tfjson.StateModule, into map[string]*tfjson.StateResource) {
	if m == nil {
		return
	}
	for _, r := range m.Resources {
		if r.DeposedKey == "" {
			into[r.Address] = r
		}
	}
	for _, c := range m.ChildModules {
		collectResources(c, into)
	}
}

// knownValuesMatch: every top-level attribute the plan knew the value of has that value in
// the state. An attribute unknown at plan time, wholly or in part, is not compared.
func knownValuesMatch(after, afterUnknown any, values map[string]any) bool {
	planned, ok := after.(map[string]any)
	if !ok {
		return after == nil
	}
	unknown, _ := afterUnknown.(map[string]any)
	for k, v := range planned {
		if hasUnknown(unknown[k]) {
			continue
		}
		got, ok := values[k]
		if !ok || !reflect.DeepEqual(v, got) {
			return false
		}
	}
	return true
}

// knownChange: a top-level attribute the plan knew the value of differs from its value
// before — a value the state, holding it, shows was set.
func knownChange(c *tfjson.Change) bool {
	after, _ := c.After.(map[string]any)
	before, _ := c.Before.(map[string]any)
	unknown, _ := c.AfterUnknown.(map[string]any)
	for k, v := range after {
		if !hasUnknown(unknown[k]) && !reflect.DeepEqual(v, before[k]) {
			return true
		}
	}
	return false
}

// replaced: an attribute unknown at plan time (an id, say) has another value in the state
// than the object before it — the replacement object is there.
func replaced(c *tfjson.Change, values map[string]any) bool {
	before, _ := c.Before.(map[string]any)
	unknown, _ := c.AfterUnknown.(map[string]any)
	for k, u := range unknown {
		if hasUnknown(u) && before[k] != nil && !reflect.DeepEqual(values[k], before[k]) {
			return true
		}
	}
	return false
}

// hasUnknown: an after_unknown value that is true somewhere.
func hasUnknown(v any) bool {
	switch v := v.(type) {
	case bool:
		return v
	case map[string]any:
		for _, e := range v {
			if hasUnknown(e) {
				return true
			}
		}
	case []any:
		for _, e := range v {
			if hasUnknown(e) {
				return true
			}
		}
	}
	return false
}

// noteAlready says in the run's notes how tfgate knows each project it found applied was.
func (a *review) noteAlready() {
	for _, p := range a.run.Projects {
		if p.Apply != nil && p.Apply.Already != "" {
			a.run.Notes = append(a.run.Notes, p.Name+": "+p.Apply.Already+".")
		}
	}
}

// already reports whether every project the run applied had been applied by an earlier run.
func (a *review) already() bool {
	n := 0
	for _, p := range a.run.Projects {
		if p.Status == report.StatusApplied {
			if p.Apply == nil || p.Apply.Already == "" {
				return false
			}
			n++
		}
	}
	return n > 0
}
