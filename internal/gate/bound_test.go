package gate

import (
	"slices"
	"testing"
	"time"

	"github.com/tfgate/tfgate/internal/plan"
)

var (
	plus1 = PlanPrint{Digest: "d1", Summary: plan.Summary{Add: 1}}
	plus3 = PlanPrint{Digest: "d3", Summary: plan.Summary{Add: 3}}
)

// history: the head's plans were published at minute 10 (plus1 of the project) and at
// minute 20, the current one, whose print is now.
func history(then PlanPrint, now PlanPrint, seen bool) func(in *Input) {
	return func(in *Input) {
		in.Plans = &Plans{Published: []time.Time{at(10), at(20)}, Seen: map[int]SeenPlan{}}
		if seen {
			in.Plans.Seen[0] = SeenPlan{Projects: map[string]PlanPrint{"envs/prod/network": then}}
		}
		in.Projects[0].Plan = now
	}
}

// An approval counts for the plan it was given on: after the current plan's publication it
// counts; on an earlier plan only while the project's changes are the same.
func TestBoundApprovals(t *testing.T) {
	cases := []struct {
		name    string
		edit    func(in *Input)
		allowed bool
		reason  string
	}{
		{"not bound without a record", reviewed(approve(5, "bob")), true, ""},
		{"after the current plan", both(history(plus1, plus3, false), reviewed(approve(21, "bob"))), true, ""},
		{"identical re-plan", both(history(plus1, plus1, true), reviewed(approve(15, "bob"))), true, ""},
		{"changed re-plan", both(history(plus1, plus3, true), reviewed(approve(15, "bob"))), false,
			"the plan changed since @bob approved: envs/prod/network was +1, now +3; @bob must approve it again"},
		{"same counts, other changes", both(history(plus1, PlanPrint{Digest: "dx", Summary: plus1.Summary}, true), reviewed(approve(15, "bob"))), false,
			"the plan changed since @bob approved: envs/prod/network plans other changes (+1 then and now); @bob must approve it again"},
		{"before any plan", both(history(plus1, plus1, true), reviewed(approve(5, "bob"))), false,
			"@bob approved before any plan of a1b2c3d was published; @bob must approve the plan"},
		{"no digest then", both(history(PlanPrint{Summary: plus1.Summary}, plus1, true), reviewed(approve(15, "bob"))), false,
			"the plan of envs/prod/network was made again since @bob approved, and a bundle without a changes digest (an older tfgate's) cannot show it is the same; @bob must approve it again"},
		{"no digest now", both(history(plus1, PlanPrint{Summary: plus1.Summary}, true), reviewed(approve(15, "bob"))), false, ""},
		{"not read", both(history(plus1, plus1, false), reviewed(approve(15, "bob"))), false,
			"the plan @bob approved was not read; @bob must approve the current plan"},
		{"expired", both(history(plus1, plus1, false), func(in *Input) { in.Plans.Seen[0] = SeenPlan{Unreadable: "its artifact has expired"} },
			reviewed(approve(15, "bob"))), false,
			"the plan @bob approved cannot be read (its artifact has expired), so it cannot be shown to be the current one; @bob must approve the current plan"},
		{"not planned then", both(history(plus1, plus1, true), func(in *Input) { in.Plans.Seen[0] = SeenPlan{Projects: map[string]PlanPrint{}} },
			reviewed(approve(15, "bob"))), false,
			"the plan changed since @bob approved: envs/prod/network was not planned then, now +1; @bob must approve it again"},
		{"re-approved", both(history(plus1, plus3, true), reviewed(approve(15, "bob"), approve(25, "bob"))), true, ""},
		{"a second approver on the current plan", both(history(plus1, plus3, true), reviewed(approve(15, "bob"), approve(22, "carol"))), true, ""},
		{"no publication known", both(history(plus1, plus1, false), func(in *Input) { in.Plans.Published = nil }, reviewed(approve(15, "bob"))), false,
			"@bob approved before any plan of a1b2c3d was published; @bob must approve the plan"},
		{"review-only items are not plans", both(history(plus1, plus3, true), project(func(p *Project) { p.ReviewOnly = true }),
			reviewed(approve(15, "bob"))), true, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pv := Evaluate(input(c.edit)).Projects[0]
			if pv.Allowed != c.allowed {
				t.Fatalf("allowed %t, want %t: %+v", pv.Allowed, c.allowed, pv.Reasons)
			}
			if c.allowed {
				return
			}
			var got []string
			for _, r := range pv.Reasons {
				if r.Code == CodePlanChanged {
					got = append(got, r.Text)
					if !r.Pending {
						t.Errorf("%s is not pending: an approval lifts it", r.Code)
					}
				}
			}
			if len(got) != 1 || (c.reason != "" && got[0] != c.reason) {
				t.Errorf("plan-changed reasons %q, want %q", got, c.reason)
			}
		})
	}
}

// A policy owner's approval of a plan that changed since overrides no deny.
func TestBoundOwnerApproval(t *testing.T) {
	pv := Evaluate(input(both(history(plus1, plus3, true), project(func(p *Project) { p.PolicyDenied = true }),
		reviewed(approve(15, "alice"), approve(22, "bob"))))).Projects[0]
	if pv.Allowed || len(pv.PolicyOverriddenBy) > 0 || !slices.Equal(pv.Approvers, []string{"bob"}) {
		t.Fatalf("got %+v", pv)
	}
}

// The plan an approval saw is the newest published before it; one of the same second is
// not (GitHub's timestamps are to the second).
func TestSawPlan(t *testing.T) {
	pub := []time.Time{at(10), at(20), at(20).Add(time.Second)}
	for _, c := range []struct {
		at   time.Time
		want int
	}{
		{at(9), -1}, {at(10), -1}, {at(10).Add(999 * time.Millisecond), -1}, {at(10).Add(time.Second), 0},
		{at(19), 0}, {at(20), 0}, {at(20).Add(time.Second), 1}, {at(20).Add(2 * time.Second), 2}, {at(30), 2},
	} {
		if got := SawPlan(c.at, pub); got != c.want {
			t.Errorf("SawPlan(%s) = %d, want %d", c.at.Format(time.TimeOnly+".000"), got, c.want)
		}
	}
}

// Apply derives the digest from the plan file: a manifest that says another refuses; one
// that records none (an older tfgate's) does not, and binds no earlier approval.
func TestCheckManifestDigest(t *testing.T) {
	if got := CheckManifest(PlanAccount{Digest: "d1"}, PlanAccount{Digest: "d3"}); len(got) != 1 || got[0].Code != CodeManifest {
		t.Errorf("another digest: %+v", got)
	}
	if got := CheckManifest(PlanAccount{}, PlanAccount{Digest: "d3"}); len(got) != 0 {
		t.Errorf("none recorded: %+v", got)
	}
}
