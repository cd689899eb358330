package gate

import "fmt"

// Whether a saved plan that terraform refused as stale is one an earlier run applied
// ("already applied", a success) or stale indeed (a failure, tracked like every merge apply
// did not apply). pipeline compares the state with the plan, change by change
// (PlanInState); the judgement is AlreadyApplied. The state must show the plan was applied,
// not merely fail to contradict it: a plan whose changes the state cannot show (only an
// output unknown at plan time, or nothing at all) "holds" in any later state, so it is
// stale.

// Held is how the state stands against one change of a plan.
type Held int

const (
	// HeldNothing: no change to hold (a no-op, a data source read).
	HeldNothing Held = iota
	// HeldShown: the state holds the change and shows it was made — something the plan's
	// prior state did not hold: an object created, imported or moved there, an object
	// deleted, moved away or forgotten, a known value that differs from the one before.
	HeldShown
	// HeldUnshown: the state holds what is known of the change, which the prior state held
	// too (a value unknown at plan time, an update of only such values).
	HeldUnshown
	// HeldNot: the state does not hold the change (another value, an object missing, an
	// object still there).
	HeldNot
	// HeldUnchecked: a change tfgate cannot check (a deposed object, an action it does not
	// know).
	HeldUnchecked
)

// PlanChange is one change of a plan and how the state stands against it.
type PlanChange struct {
	What string // "terraform_data.x", "output name": never a value (outputs may be sensitive)
	Held Held
}

// PlanInState is how the state terraform holds now stands against a saved plan it refused
// as stale.
type PlanInState struct {
	// Continues: the state continues the plan's prior state — same lineage (or the plan
	// was made before any state existed) and a later serial. Changes are compared only then.
	Continues           bool
	PriorSerial, Serial uint64
	Changes             []PlanChange
}

// AlreadyApplied judges a plan terraform refused as stale: already, the sentence saying
// how tfgate knows an earlier run applied it, when the state continues the plan's prior
// state, holds every change of the plan and shows at least one was made; else "" and why
// not, a parenthesis for the stale plan's refusal.
func AlreadyApplied(f PlanInState) (already, why string) {
	if !f.Continues {
		return "", "(not applied by an earlier run: the state is not a later serial of the one the plan was made on)"
	}
	by := map[Held][]string{}
	for _, c := range f.Changes {
		by[c.Held] = append(by[c.Held], c.What)
	}
	switch {
	case len(by[HeldNot]) > 0:
		return "", "(not applied by an earlier run, or changed since: the state does not hold " + clip(by[HeldNot]) + " as the plan makes it)"
	case len(by[HeldUnchecked]) > 0:
		return "", "(whether an earlier run applied it cannot be told: tfgate cannot check " + clip(by[HeldUnchecked]) + " in the state)"
	case len(by[HeldShown]) == 0 && len(by[HeldUnshown]) == 0:
		return "", "(whether an earlier run applied it cannot be told: the plan changes nothing the state could show)"
	case len(by[HeldShown]) == 0:
		return "", "(whether an earlier run applied it cannot be told: the state shows none of its changes made — " + clip(by[HeldUnshown]) + ": values unknown when planned, or no different from before)"
	}
	return fmt.Sprintf("already applied: the state (serial %d, after the plan's %d) holds every change of this plan — an earlier run applied it; nothing was applied twice",
		f.Serial, f.PriorSerial), ""
}
