package terraform

import "github.com/tfgate/tfgate/internal/english"

// PlanDetail says how far a plan is. Terraform does not say beforehand how many resources
// it will walk, and while it walks it reports only the resources already in the state, as
// it refreshes them; the changes and their summary come at the end. So the detail counts
// what is known — "4,210 resources refreshed", then "10,000 to add, 2 to change, 0 to
// destroy" — and never guesses a total.
func PlanDetail(p Progress) (string, string) {
	switch {
	case p.Summary != nil:
		s := p.Summary
		text := english.Count(s.Add) + " to add, " + english.Count(s.Change) + " to change, " + english.Count(s.Remove) + " to destroy"
		if s.Import > 0 {
			text = english.Count(s.Import) + " to import, " + text
		}
		return text, "summary"
	case p.Planned > 0:
		return english.Plural(p.Planned, "change", "changes") + " planned", "planned"
	case p.Refreshing > 0:
		return english.Plural(p.Refreshed, "resource", "resources") + " refreshed", "refresh"
	}
	return "", ""
}

// ApplyDetail says how far an apply is: terraform lists the plan's changes before it
// applies them, so the total is known ("1,200 of 10,000 applied").
func ApplyDetail(p Progress) (string, string) {
	switch {
	case p.Summary != nil:
		s := p.Summary
		return english.Count(s.Add) + " added, " + english.Count(s.Change) + " changed, " + english.Count(s.Remove) + " destroyed", "summary"
	case p.ToApply == 0:
		return "", ""
	}
	text := english.Count(p.Applied+p.Failed) + " of " + english.Count(p.ToApply) + " applied"
	if p.Failed > 0 {
		text += ", " + english.Count(p.Failed) + " failed"
	}
	return text, "apply"
}
