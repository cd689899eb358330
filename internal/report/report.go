// Package report is the neutral model of one tfgate run — plan, gate, apply or drift — over
// several projects: per-project status, changes, policy result, gate verdict with its typed
// reasons (Reason: code, text, pending), apply outcome, notes. The runners return a whole
// Run; renderers (text, markdown, JSON) and publishers only read it. Nothing here formats
// text, knows a medium or decides anything.
package report

import (
	"time"

	"github.com/tfgate/tfgate/internal/cost"
	"github.com/tfgate/tfgate/internal/plan"
	"github.com/tfgate/tfgate/internal/policy"
)

// Kind is the job a run did.
type Kind string

const (
	KindPlan  Kind = "plan"
	KindGate  Kind = "gate"
	KindApply Kind = "apply"
	KindDrift Kind = "drift"
)

// Status is how one project's part of a run ended.
type Status string

const (
	StatusPlanned     Status = "planned"      // plan succeeded (with or without changes)
	StatusApplied     Status = "applied"      // apply succeeded
	StatusInSync      Status = "in_sync"      // drift: infrastructure, state and code agree
	StatusDrifted     Status = "drifted"      // drift: infrastructure changed outside Terraform
	StatusPending     Status = "pending"      // drift: code in Git not yet applied
	StatusCheckFailed Status = "check_failed" // drift: no drift, no pending code, but a check or condition failed
	StatusAllowed     Status = "allowed"      // the gate allows applying it (gate runs; apply --dry-run: verified, not applied)
	StatusRefused     Status = "refused"      // the approval gate refused it; Error says why
	StatusFailed      Status = "failed"       // init/plan/show/apply failed; Error says why
	StatusNotStarted  Status = "not_started"  // never ran: interrupted before, or a dependency did not succeed
	StatusInterrupted Status = "interrupted"  // stopped by Ctrl-C/SIGTERM while it ran
)

// Succeeded reports whether the project's job ran to its end, whatever it found.
func (s Status) Succeeded() bool {
	switch s {
	case StatusPlanned, StatusApplied, StatusAllowed, StatusInSync, StatusDrifted, StatusPending, StatusCheckFailed:
		return true
	}
	return false
}

// Run is the result of one tfgate command over its projects.
type Run struct {
	Kind      Kind
	Base      string // the ref changes were compared with, e.g. "origin/main"; "" for --all or explicit projects
	MergeBase string // short sha of the merge base with Base
	Commit    string // the commit checked (drift) or applied (apply: the merge commit), full sha; "" when unknown
	// PR is the pull request whose plans a gate or apply run judged (0: none); Reviewed is
	// its head commit, the one reviewers approved and the bundles were planned on.
	PR       int
	Reviewed string
	DryRun   bool // apply --dry-run: everything was checked, nothing applied
	// Verdict is the gate's verdict on the whole pull request (gate and apply runs).
	Verdict *Verdict
	// Policies says where the policies came from ("policies/ at base commit 3f2c1aa
	// (origin/main)", "policies/ in the working tree"), "" when none are configured.
	Policies string
	// PolicyNotes are about the policies themselves, e.g. that this change edits policy
	// files, which take effect only after merge.
	PolicyNotes []string
	// Cost says where the projects' costs came from ("the price catalogue policies/prices.json
	// at base commit 3f2c1aa", "Infracost (infracost.json)"), "" when no cost source is
	// configured: renderers then show no cost at all.
	Cost string
	// Notes are about the run as a whole, e.g. that a project was removed from the
	// repository (removing code destroys nothing). Plain sentences; renderers escape them.
	Notes    []string
	Projects []Project // in project order
	// Scope is why change detection chose the projects (plan runs; nil otherwise): the
	// comment's graph draws it (render.ScopeMermaid).
	Scope *Scope `json:"-"`
}

// Project is one project's part of a run. Fields that do not apply to the run's kind or to
// how the project ended are zero; renderers ignore what they do not know.
type Project struct {
	Name, Dir, Workspace string
	Status               Status
	Error                string // why it failed, was refused or did not start; already masked
	Duration             time.Duration
	Changes              *plan.Changes // the plan's redacted changes; nil when there is no plan
	Bundle               string        // the plan file written with --out
	// ReusedFrom is the commit whose plan a push of the pull request reused, nothing it
	// depends on having changed (docs/busy-repositories.md); "" = planned in this run.
	ReusedFrom string
	// Policy is nil when no policies are configured or there was no plan to judge. Its
	// messages quote plan values: the pipeline masks it before it lands here.
	Policy *policy.Result
	// Cost is the project's monthly cost before and after the plan (docs/cost.md); nil
	// when no cost source is configured or it has no price for this project. Masked.
	Cost  *cost.Cost
	Gate  *Gate  // the approval gate's verdict (gate and apply runs)
	Apply *Apply // what apply did (apply runs)
	// Suggestions (drift runs) are the edits that would fold drift back into the code, one
	// line each: `main.tf:12  content = "v1" → "v2"`, or why an attribute cannot be folded
	// back ("set by var.size in prod.tfvars"). Already redacted.
	Suggestions []string
	// Issue (drift runs) is the URL of the project's drift issue, when one was published.
	Issue string
	// FoldBack (drift runs with --fold-back-pr) is the project's fold-back pull request, or
	// why it has none; nil when fold-back pull requests were not asked for.
	FoldBack *FoldBack
}

// Phase is one phase of a project's job as progress reported it ("init", "plan", "apply",
// …): when it began and how long it lasted. A Project does not carry its phases: whoever
// watches the progress records them (metrics.Recorder), by project name.
type Phase struct {
	Name     string
	Start    time.Time // when the project entered it; zero when unknown
	Duration time.Duration
}

// End is when the project left the phase; zero when its start is unknown.
func (p Phase) End() time.Time {
	if p.Start.IsZero() {
		return time.Time{}
	}
	return p.Start.Add(p.Duration)
}

// Verdict is the approval gate's verdict on a pull request, as its commit status says it.
type Verdict struct {
	State       GateState
	Description string // one line, at most 140 characters: what is missing, or why it passes
}

// GateState is where the approval gate's verdict leaves a pull request. Its values are the
// words the JSON output, matrix result files and metrics have always carried (GitHub's own,
// once); notify maps them to a commit status's state, and a value read from an older file
// that is none of these is kept as it was.
type GateState string

const (
	GateAllowed GateState = "success" // every project may apply
	GatePending GateState = "pending" // every reason left is one more reviews can lift
	GateBlocked GateState = "failure" // something other than reviews must change first
	// GateError: the gate could not judge (tfgate failed); no earlier verdict holds.
	GateError GateState = "error"
)

// Gate is the approval gate's verdict on one project.
type Gate struct {
	Allowed bool
	// Pending: the only reasons are missing approvals, which more reviews can give.
	Pending bool
	Reasons []Reason // why not, one sentence each; empty when allowed
	// Approvals are the reviews that counted, by login, oldest first.
	Approvals []Approval
	// PolicyOverriddenBy are the policy owners whose approval overrode a policy deny.
	PolicyOverriddenBy []string
}

// Reason is one reason the gate or apply's verification refused a project.
type Reason struct {
	Code string // stable, for machines: one of internal/gate's Code constants ("" when read from an older result)
	Text string // for people: what is wrong and what to do; already masked
	// Pending: more reviews can lift it (the gate's status is pending); else it blocks
	// until something else changes.
	Pending bool
}

// Texts are the reasons' texts, in order.
func (g *Gate) Texts() []string {
	if g == nil {
		return nil
	}
	out := make([]string, len(g.Reasons))
	for i, r := range g.Reasons {
		out[i] = r.Text
	}
	return out
}

// Approvers lists the logins whose approvals counted.
func (g *Gate) Approvers() []string {
	if g == nil {
		return nil
	}
	out := make([]string, len(g.Approvals))
	for i, a := range g.Approvals {
		out[i] = a.Login
	}
	return out
}

// Approval is one review that counted.
type Approval struct {
	Login  string
	At     time.Time // when it was submitted
	Commit string    // the commit it approved
}

// Apply is what apply did with one project's reviewed plan (the bundle it verified).
type Apply struct {
	PlanSHA256       string       // the plan file applied (or that would be, in a dry run)
	InputHash        string       // the project's inputs as planned and found again on the merge commit
	TerraformVersion string       // the version it was planned and applied with
	Summary          plan.Summary // what the plan changes
	// Already says how tfgate knows an earlier run applied this very plan (the state holds
	// it): this run applied nothing. "" = this run applied it.
	Already string
}

// Totals sums the summaries of every project that has a plan.
func (r Run) Totals() plan.Summary {
	var s plan.Summary
	for _, p := range r.Projects {
		if p.Changes != nil {
			s = s.Plus(p.Changes.Summary)
		}
	}
	return s
}

// Unfinished lists the projects that did not run to their end: failed, interrupted or
// never started (a refusal is a verdict, not a failure).
func (r Run) Unfinished() []Project {
	var out []Project
	for _, p := range r.Projects {
		if !p.Status.Succeeded() && p.Status != StatusRefused {
			out = append(out, p)
		}
	}
	return out
}

// Count counts the projects with the given status.
func (r Run) Count(s Status) int {
	n := 0
	for _, p := range r.Projects {
		if p.Status == s {
			n++
		}
	}
	return n
}

// Denied counts the projects whose plan a policy denied (or whose evaluation failed).
func (r Run) Denied() int {
	n := 0
	for _, p := range r.Projects {
		if p.Policy != nil && p.Policy.Denied() {
			n++
		}
	}
	return n
}

// HasChanges reports whether applying any project's plan would change something.
func (r Run) HasChanges() bool {
	return r.Totals().HasChanges()
}
