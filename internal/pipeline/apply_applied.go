package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	tfjson "github.com/hashicorp/terraform-json"

	"github.com/tfgate/tfgate/internal/report"
	"github.com/tfgate/tfgate/internal/stage"
	"github.com/tfgate/tfgate/internal/terraform"
)

// Recognising a plan an earlier run applied. Terraform refuses a saved plan as stale when
// the state's lineage or serial moved since the plan was made — and applying it moves
// both. So a re-run of a successful apply (the obvious remedy when GitHub was down right
// after it, or a catch-up run meeting a merge that a cancelled run had applied) meets a
// "stale" plan that is in fact its own. It is recognised by the state itself, never by a
// record on GitHub (which may be the very thing that is missing): the state continues the
// plan's prior state (same lineage, or the plan was made before any state existed, and a
// higher serial), and holds what the plan makes — every object it creates or updates with
// the planned value of each attribute known at plan time, every object it deletes gone.
// A plan whose changes someone else undid or changed since is stale, as before.

// appliedBefore reports whether the state already holds what r's saved plan makes (see
// above): a sentence saying how tfgate knows, or "" when it does not.
func appliedBefore(ctx context.Context, r *stage.ProjectRun) (string, error) {
	prior, err := terraform.PlanPriorState(r.PlanFile)
	if err != nil {
		return "", err
	}
	raw, err := r.TF.StatePull(ctx)
	if err != nil {
		return "", err
	}
	cur, err := terraform.ReadStateMeta(bytes.NewReader(raw))
	if err != nil {
		return "", fmt.Errorf("the state terraform pulled: %w", err)
	}
	if prior.Lineage != "" && prior.Lineage != cur.Lineage || cur.Serial <= prior.Serial {
		return "", nil
	}
	planRaw, err := r.TF.ShowPlan(ctx, r.PlanFile)
	if err != nil {
		return "", err
	}
	var p tfjson.Plan
	if err := json.Unmarshal(planRaw, &p); err != nil {
		return "", fmt.Errorf("read the saved plan: %w", err)
	}
	stateRaw, err := r.TF.ShowState(ctx)
	if err != nil {
		return "", err
	}
	var st tfjson.State
	if err := json.Unmarshal(stateRaw, &st); err != nil {
		return "", fmt.Errorf("read the current state: %w", err)
	}
	if !stateHolds(&p, &st) {
		return "", nil
	}
	return fmt.Sprintf("already applied: the state (serial %d, after the plan's %d) holds every change of this plan — an earlier run applied it; nothing was applied twice",
		cur.Serial, prior.Serial), nil
}

// stateHolds reports whether the state holds every change of the plan (see above). A plan
// with a change it cannot check (a deposed object, an action it does not know) is not
// held: terraform's refusal stands.
func stateHolds(p *tfjson.Plan, st *tfjson.State) bool {
	objects := map[string]*tfjson.StateResource{}
	if st.Values != nil {
		collectResources(st.Values.RootModule, objects)
	}
	for _, rc := range p.ResourceChanges {
		if rc.Change == nil || rc.Mode == tfjson.DataResourceMode {
			continue
		}
		acts := rc.Change.Actions
		if acts.NoOp() || acts.Read() {
			continue
		}
		if rc.DeposedKey != "" {
			return false
		}
		obj, exists := objects[rc.Address]
		switch {
		case acts.Delete():
			if exists {
				return false
			}
		case acts.Create(), acts.Update(), acts.Replace():
			if !exists || !knownValuesMatch(rc.Change.After, rc.Change.AfterUnknown, obj.AttributeValues) {
				return false
			}
		default:
			return false
		}
	}
	return true
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
