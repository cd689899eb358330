package gate

import (
	"fmt"
	"time"

	"github.com/tfgate/tfgate/internal/plan"
)

// An approval approves a plan, not only a commit. The same commit can be planned again —
// on GitHub's test merge with a newer default branch, by a re-run — and the new plan can
// change what was approved. GitHub's record of each publication of a commit's plans (its
// artifacts' created_at) says which plan an approval was given on: the newest published
// before it. An approval of an earlier plan counts for a project only while the project's
// plan is the same (the same changes digest, plan.Digest): otherwise the gate asks again
// and says what changed (CodePlanChanged).

// CodePlanChanged: an approval given on an earlier plan of the head whose changes are not
// the current plan's (or cannot be shown to be the same) does not count.
const CodePlanChanged = "plan-changed"

// Plans is what GitHub records of the publications of the plans the gate judges: nil when
// there is no such record (--plans DIR holds one plan and no history; a merge queue's
// commit is planned once and approved on the pull request's head), and approvals are then
// not bound to a plan.
type Plans struct {
	// Published are the times GitHub created each publication of the commit's plans (each
	// plan run's artifact), oldest first; the last is the plan being judged.
	Published []time.Time
	// Seen is what was read of each earlier publication an approval was given on (by its
	// index in Published, SawPlan). One missing cannot be shown to be the same.
	Seen map[int]SeenPlan
}

// SeenPlan is what was read of an earlier publication of the plans.
type SeenPlan struct {
	Unreadable string               // why it could not be read (its artifact expired); "" = read
	Projects   map[string]PlanPrint // its plans, by project name; a project missing was not planned in it
}

// PlanPrint is what identifies a project's plan to its reviewers: the digest of its changes
// (plan.Digest; "" when the bundle recorded none) and their counts, for messages.
type PlanPrint struct {
	Digest  string
	Summary plan.Summary
}

// SawPlan is the index in published (oldest first) of the plan an approval submitted at at
// was given on: the newest published before it. GitHub's timestamps are to the second, so a
// plan published in the same second as the approval may have come after it: it is not
// that one (an earlier one is, or none). -1: no plan was published before it.
func SawPlan(at time.Time, published []time.Time) int {
	at = at.Truncate(time.Second)
	seen := -1
	for i, p := range published {
		if p.Truncate(time.Second).Before(at) {
			seen = i
		}
	}
	return seen
}

// bound is rv for project p with each approval given on another plan than p's moved from
// the approvers to the approvals that do not count, with why.
func bound(in Input, p Project, rv reviews) reviews {
	if in.Plans == nil || p.ReviewOnly || !p.HasBundle {
		return rv
	}
	out := reviews{changesRequested: rv.changesRequested, ignored: append([]Reason(nil), rv.ignored...)}
	for _, a := range rv.approvers {
		if why := in.Plans.unlike(a, p, in.PR.HeadSHA); why != "" {
			out.ignored = append(out.ignored, Reason{CodePlanChanged, why, true})
			continue
		}
		out.approvers = append(out.approvers, a)
	}
	return out
}

// unlike is why approval a was not given on p's plan, nor on one the same; "" when it was.
func (ps *Plans) unlike(a approval, p Project, head string) string {
	current := len(ps.Published) - 1
	i := SawPlan(a.at, ps.Published)
	who := "@" + a.login
	switch {
	case i < 0: // (also when no publication is known: nothing shows what it approved)
		return who + " approved before any plan of " + short(head) + " was published; " + who + " must approve the plan"
	case i == current:
		return ""
	}
	seen, ok := ps.Seen[i]
	switch {
	case !ok:
		return "the plan " + who + " approved was not read; " + who + " must approve the current plan"
	case seen.Unreadable != "":
		return "the plan " + who + " approved cannot be read (" + seen.Unreadable + "), so it cannot be shown to be the current one; " +
			who + " must approve the current plan"
	}
	then, planned := seen.Projects[p.Name]
	now := p.Plan
	switch {
	case !planned:
		return fmt.Sprintf("the plan changed since %s approved: %s was not planned then, now %s; %s must approve it again",
			who, p.Name, now.Summary.Counts(), who)
	case then.Digest == "" || now.Digest == "":
		return "the plan of " + p.Name + " was made again since " + who + " approved, and a bundle without a changes digest " +
			"(an older tfgate's) cannot show it is the same; " + who + " must approve it again"
	case then.Digest == now.Digest:
		return ""
	case then.Summary == now.Summary:
		return fmt.Sprintf("the plan changed since %s approved: %s plans other changes (%s then and now); %s must approve it again",
			who, p.Name, now.Summary.Counts(), who)
	}
	return fmt.Sprintf("the plan changed since %s approved: %s was %s, now %s; %s must approve it again",
		who, p.Name, then.Summary.Counts(), now.Summary.Counts(), who)
}
