// Package render turns tfgate's results into what people and programs read: terminal text,
// JSON (and, later, markdown). It owns the report model the pipeline fills; it never sees a
// raw plan value, only the redacted model from internal/plan, and it escapes every string
// it prints so that text from a plan or a repository cannot drive the terminal.
package render

import (
	"time"

	"github.com/tfgate/tfgate/internal/plan"
	"github.com/tfgate/tfgate/internal/policy"
)

// Status is how a project's run ended.
type Status string

const (
	StatusPlanned Status = "planned" // plan succeeded (with or without changes)
	StatusFailed  Status = "failed"  // init/plan/show failed; Error says why
)

// Report is the result of one tfgate run over several projects.
type Report struct {
	Base      string // the ref changes were compared with, e.g. "origin/main"; "" for --all or explicit projects
	MergeBase string // short sha of the merge base with Base
	Projects  []ProjectReport

	// Policies says where the policies came from ("base commit 3f2c1aa (origin/main)",
	// "working tree") or "" when no policies are configured.
	Policies string
	// PolicyNotes are messages about the policies themselves, e.g. that this change edits
	// policy files, which take effect only after merge.
	PolicyNotes []string
	// Notes are about the run as a whole, e.g. that a project was removed from the
	// repository (removing code destroys nothing). Plain sentences; renderers escape them.
	Notes []string
}

// ProjectReport is the result for one project. Later features add fields;
// renderers ignore what they do not know.
type ProjectReport struct {
	Name, Dir, Workspace string
	Status               Status
	Error                string // when failed: what went wrong, already redacted by the caller
	Duration             time.Duration
	Changes              *plan.Changes // nil when failed
	PlanFile             string        // bundle directory when --out was given
	// Policy is nil when no policies are configured or the plan failed. Its messages and
	// metadata are printed as they are (escaped, never obeyed): a policy may quote plan
	// values, including sensitive ones, and render never sees the plan's secrets, so the
	// caller must mask the result the way plan.Summarise masks values.
	Policy *policy.Result
}

// Totals sums the summaries of all projects that planned.
func (r Report) Totals() plan.Summary {
	var s plan.Summary
	for _, p := range r.Projects {
		if p.Changes != nil {
			s = s.Plus(p.Changes.Summary)
		}
	}
	return s
}

// Failed counts the projects that failed.
func (r Report) Failed() int {
	n := 0
	for _, p := range r.Projects {
		if p.Status == StatusFailed {
			n++
		}
	}
	return n
}

// Denied counts the projects whose plan a policy denied (or whose evaluation failed).
func (r Report) Denied() int {
	n := 0
	for _, p := range r.Projects {
		if p.Policy != nil && p.Policy.Denied() {
			n++
		}
	}
	return n
}

// HasChanges reports whether applying any project's plan would change something.
func (r Report) HasChanges() bool {
	return r.Totals().HasChanges()
}

// TextOptions tune Text and PlanText.
type TextOptions struct {
	Color bool // ANSI colours; only for a terminal
	// Width is the terminal's width. 0 means not a terminal (or unknown): lines are laid
	// out for 80 columns, and long values are wrapped whole instead of shortened.
	Width int
}

func (o TextOptions) width() int {
	if o.Width <= 0 {
		return 80
	}
	return o.Width
}
