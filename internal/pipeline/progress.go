package pipeline

import (
	"sync"
	"time"

	"github.com/tfgate/tfgate/internal/english"
	"github.com/tfgate/tfgate/internal/terraform"
)

// detailEvery is how often a project's progress detail may change: terraform reports
// thousands of resources a second on a large plan, and a terminal needs a few updates a
// second at most.
const detailEvery = 250 * time.Millisecond

// detailer passes terraform's counts on as a project's progress detail, throttled: a
// count at most every detailEvery, but at once when the kind of news changes (the walk
// ended and the changes arrive, the summary is in), so that the last word is never lost.
// Terraform's UI is read on one goroutine; the mutex is for the race detector's peace of
// mind and costs nothing.
type detailer struct {
	mu       sync.Mutex
	now      func() time.Time
	emit     func(string)
	format   func(terraform.Progress) (text, kind string)
	last     time.Time
	lastKind string
	lastText string
}

func newDetailer(now func() time.Time, emit func(string), format func(terraform.Progress) (string, string)) *detailer {
	return &detailer{now: now, emit: emit, format: format}
}

// update is a terraform.PlanOptions.Progress.
func (d *detailer) update(p terraform.Progress) {
	text, kind := d.format(p)
	d.mu.Lock()
	defer d.mu.Unlock()
	if text == "" || text == d.lastText {
		return
	}
	now := d.now()
	if kind == d.lastKind && now.Sub(d.last) < detailEvery {
		return
	}
	d.last, d.lastKind, d.lastText = now, kind, text
	d.emit(text)
}

// planDetail says how far a plan is. Terraform does not say beforehand how many resources
// it will walk, and while it walks it reports only the resources already in the state, as
// it refreshes them; the changes and their summary come at the end. So the detail counts
// what is known — "4,210 resources refreshed", then "10,000 to add, 2 to change, 0 to
// destroy" — and never guesses a total.
func planDetail(p terraform.Progress) (string, string) {
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

// applyDetail says how far an apply is: terraform lists the plan's changes before it
// applies them, so the total is known ("1,200 of 10,000 applied").
func applyDetail(p terraform.Progress) (string, string) {
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
