package gate

import "testing"

// A stale plan is already applied only when the state continues the plan's, holds every
// change and shows one was made. Where it is not, the words say why, naming the changes
// (whole: the stale plan's refusal reads them).
func TestAlreadyApplied(t *testing.T) {
	shown := PlanChange{What: "terraform_data.x", Held: HeldShown}
	later := func(changes ...PlanChange) PlanInState {
		return PlanInState{Continues: true, PriorSerial: 3, Serial: 5, Changes: changes}
	}
	for _, c := range []struct {
		name         string
		f            PlanInState
		already, why string
	}{
		{"held and shown", later(shown, PlanChange{What: "output o", Held: HeldUnshown}, PlanChange{What: "terraform_data.n", Held: HeldNothing}),
			"already applied: the state (serial 5, after the plan's 3) holds every change of this plan — an earlier run applied it; nothing was applied twice", ""},
		{"another state", PlanInState{PriorSerial: 3, Serial: 1, Changes: []PlanChange{shown}},
			"", "(not applied by an earlier run: the state is not a later serial of the one the plan was made on)"},
		{"a change not held", later(shown, PlanChange{What: "output o", Held: HeldNot}, PlanChange{What: "terraform_data.y", Held: HeldNot}),
			"", "(not applied by an earlier run, or changed since: the state does not hold output o, terraform_data.y as the plan makes it)"},
		{"a change unchecked", later(shown, PlanChange{What: "terraform_data.d", Held: HeldUnchecked}),
			"", "(whether an earlier run applied it cannot be told: tfgate cannot check terraform_data.d in the state)"},
		{"nothing shown", later(PlanChange{What: "output t", Held: HeldUnshown}),
			"", "(whether an earlier run applied it cannot be told: the state shows none of its changes made — output t: values unknown when planned, or no different from before)"},
		{"no change", later(PlanChange{What: "terraform_data.n", Held: HeldNothing}),
			"", "(whether an earlier run applied it cannot be told: the plan changes nothing the state could show)"},
		{"no change at all", later(), "", "(whether an earlier run applied it cannot be told: the plan changes nothing the state could show)"},
	} {
		already, why := AlreadyApplied(c.f)
		if already != c.already || why != c.why {
			t.Errorf("%s: AlreadyApplied = %q, %q; want %q, %q", c.name, already, why, c.already, c.why)
		}
	}
}
