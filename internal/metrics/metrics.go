// Package metrics turns one finished run into numbers for monitoring — per project and
// phase durations, outcomes, resources changed, policy verdicts, gate outcomes, drift
// counts and GitHub API use — and writes them as JSON or as OpenMetrics text (what the
// node-exporter textfile collector and the Pushgateway read). It measures nothing itself
// except phases, through Recorder; it never writes files.
package metrics

import (
	"math"
	"time"

	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/plan"
	"github.com/tfgate/tfgate/internal/policy"
	"github.com/tfgate/tfgate/internal/report"
)

// Schema is the version of the JSON document; it changes only when a field changes meaning
// or goes away (new fields may appear in any version).
const Schema = 1

// Outcome is how a project's job ended, coarser than report.Status: whether terraform ran
// to its end.
type Outcome string

const (
	OutcomeOK          Outcome = "ok"          // planned, applied, allowed (dry run), in sync, drifted, pending
	OutcomeFailed      Outcome = "failed"      // init, plan, show, apply (or opening its bundle) failed
	OutcomeInterrupted Outcome = "interrupted" // stopped by a signal while it ran
	OutcomeNotStarted  Outcome = "not_started" // interrupted before it started, or a dependency did not succeed
	OutcomeRefused     Outcome = "refused"     // the approval gate refused it (apply)
)

// Outcomes lists every outcome, in the order metrics show them.
var Outcomes = []Outcome{OutcomeOK, OutcomeFailed, OutcomeInterrupted, OutcomeNotStarted, OutcomeRefused}

// PhasePrepare names where a project failed when it failed before it reported any phase:
// reading its files, hashing its inputs, opening its bundle.
const PhasePrepare = "prepare"

// Metrics are one run's numbers: the JSON document of --metrics, and what the OpenMetrics
// text is made from.
type Metrics struct {
	Schema  int    `json:"schema"`
	Command string `json:"command"` // plan, apply or drift
	Version string `json:"tfgate_version,omitempty"`
	// Started and Finished bound the whole command; zero when unknown.
	Started         time.Time `json:"started"`
	Finished        time.Time `json:"finished"`
	DurationSeconds float64   `json:"duration_seconds"`
	ExitCode        int       `json:"exit_code"` // the command's exit code (README, "Exit codes")
	Projects        []Project `json:"projects"`  // in project order
	Totals          Totals    `json:"totals"`
	GitHub          GitHub    `json:"github"`
}

// Project is one project's numbers.
type Project struct {
	Name      string  `json:"name"`
	Dir       string  `json:"dir"`
	Workspace string  `json:"workspace"`
	Status    string  `json:"status"` // report.Status: planned, applied, drifted, failed, …
	Outcome   Outcome `json:"outcome"`
	// FailedPhase is the phase a failed or interrupted project was in ("init", "plan", …;
	// PhasePrepare before any); "" otherwise.
	FailedPhase     string  `json:"failed_phase,omitempty"`
	DurationSeconds float64 `json:"duration_seconds"` // from its start to its result
	// Phases are the phases it went through, in order, each once (a phase reported twice
	// is summed). Their sum is at most the duration: reading files and hashing inputs
	// before the first phase are not a phase.
	Phases  []Phase  `json:"phases"`
	Changes *Changes `json:"changes,omitempty"` // nil: no plan (it failed before show)
	Policy  *Policy  `json:"policy,omitempty"`  // nil: no policies judged it
	Gate    *Gate    `json:"gate,omitempty"`    // apply runs only
}

// Phase is how long a project spent in one phase, and when: Started is when it first
// entered it, Finished when it last left it (the job summary's timeline draws the same
// times). Both are nil when the phase's times are unknown.
type Phase struct {
	Name     string     `json:"name"`
	Seconds  float64    `json:"seconds"`
	Started  *time.Time `json:"started,omitempty"`
	Finished *time.Time `json:"finished,omitempty"`
}

// Changes are the resources a project's plan changes: the plan made (plan, drift) or the
// reviewed plan (apply). Drift counts objects changed outside Terraform.
type Changes struct {
	Add     int `json:"add"`
	Change  int `json:"change"`
	Destroy int `json:"destroy"`
	Replace int `json:"replace"`
	Import  int `json:"import"`
	Move    int `json:"move"`
	Drift   int `json:"drift"`
}

// Policy is the policies' verdict on a project's plan.
type Policy struct {
	Verdict  string `json:"verdict"` // pass, warn, deny or error
	Denies   int    `json:"denies"`
	Warnings int    `json:"warnings"`
}

// Gate is the approval gate's verdict on one project (apply runs).
type Gate struct {
	Allowed   bool `json:"allowed"`
	Pending   bool `json:"pending"` // refused only for want of approvals
	Approvals int  `json:"approvals"`
}

// Totals add up the projects.
type Totals struct {
	Outcomes OutcomeCounts `json:"outcomes"`
	Changes  Changes       `json:"changes"`
	Policy   PolicyCounts  `json:"policy"`
	Drift    *DriftCounts  `json:"drift,omitempty"` // drift runs only
	Gate     *GateCounts   `json:"gate,omitempty"`  // apply runs only
}

// OutcomeCounts count the projects by outcome.
type OutcomeCounts struct {
	OK          int `json:"ok"`
	Failed      int `json:"failed"`
	Interrupted int `json:"interrupted"`
	NotStarted  int `json:"not_started"`
	Refused     int `json:"refused"`
}

// PolicyCounts count the projects by policy verdict.
type PolicyCounts struct {
	Pass  int `json:"pass"`
	Warn  int `json:"warn"`
	Deny  int `json:"deny"`
	Error int `json:"error"`
}

// DriftCounts count a drift run's projects by what the check found.
type DriftCounts struct {
	Drifted int `json:"drifted"`
	Pending int `json:"pending"`
	InSync  int `json:"in_sync"`
}

// GateCounts count an apply run's gate verdicts; Verdict is the pull request's (success,
// pending, failure), "" when the gate was not evaluated.
type GateCounts struct {
	Verdict string `json:"verdict,omitempty"`
	Allowed int    `json:"allowed"`
	Pending int    `json:"pending"` // refused, waiting for approvals only
	Refused int    `json:"refused"` // refused for any other reason
}

// GitHub is what the GitHub client sent during the run.
type GitHub struct {
	Calls                int64   `json:"api_calls"` // HTTP requests, retries included
	Retries              int64   `json:"retries"`
	RateLimitWaits       int64   `json:"rate_limit_waits"`
	RateLimitWaitSeconds float64 `json:"rate_limit_wait_seconds"`
}

// FromRun computes the numbers of a finished run. phases are the projects' phases by
// project name (Recorder.Phases; nil: none recorded); gh is the GitHub client's Stats
// (zero when the run used no client). The caller sets what only it knows: Version,
// ExitCode, and the times (Timed).
func FromRun(run report.Run, phases map[string][]report.Phase, gh github.Stats) Metrics {
	m := Metrics{Schema: Schema, Command: string(run.Kind), Projects: []Project{}}
	for _, p := range run.Projects {
		mp := project(p, phases[p.Name])
		m.Projects = append(m.Projects, mp)
		m.Totals.add(mp)
	}
	switch run.Kind {
	case report.KindDrift:
		m.Totals.Drift = &DriftCounts{Drifted: run.Count(report.StatusDrifted), Pending: run.Count(report.StatusPending), InSync: run.Count(report.StatusInSync)}
	case report.KindApply, report.KindGate:
		g := &GateCounts{}
		if run.Verdict != nil {
			g.Verdict = string(run.Verdict.State)
		}
		for _, p := range m.Projects {
			switch {
			case p.Gate == nil:
			case p.Gate.Allowed:
				g.Allowed++
			case p.Gate.Pending:
				g.Pending++
			default:
				g.Refused++
			}
		}
		m.Totals.Gate = g
	}
	m.GitHub = GitHub{Calls: gh.Calls, Retries: gh.Retries, RateLimitWaits: gh.RateLimitWaits, RateLimitWaitSeconds: seconds(gh.RateLimitWait)}
	return m
}

// Timed records when the command started and finished.
func (m Metrics) Timed(started, finished time.Time) Metrics {
	m.Started, m.Finished = started.UTC(), finished.UTC()
	m.DurationSeconds = seconds(finished.Sub(started))
	return m
}

func project(p report.Project, phases []report.Phase) Project {
	mp := Project{Name: p.Name, Dir: p.Dir, Workspace: p.Workspace, Status: string(p.Status), Outcome: outcome(p.Status),
		DurationSeconds: seconds(p.Duration), Phases: merged(phases)}
	if mp.Outcome == OutcomeFailed || mp.Outcome == OutcomeInterrupted {
		mp.FailedPhase = PhasePrepare
		if len(phases) > 0 {
			mp.FailedPhase = phases[len(phases)-1].Name // the phase it was in last
		}
	}
	switch {
	case p.Changes != nil:
		mp.Changes = changes(p.Changes.Summary)
	case p.Apply != nil:
		mp.Changes = changes(p.Apply.Summary)
	}
	if r := p.Policy; r != nil {
		mp.Policy = &Policy{Verdict: string(r.Verdict), Denies: r.Count(policy.LevelDeny), Warnings: r.Count(policy.LevelWarn)}
	}
	if g := p.Gate; g != nil {
		mp.Gate = &Gate{Allowed: g.Allowed, Pending: g.Pending, Approvals: len(g.Approvals)}
	}
	return mp
}

func (t *Totals) add(p Project) {
	switch p.Outcome {
	case OutcomeOK:
		t.Outcomes.OK++
	case OutcomeFailed:
		t.Outcomes.Failed++
	case OutcomeInterrupted:
		t.Outcomes.Interrupted++
	case OutcomeNotStarted:
		t.Outcomes.NotStarted++
	case OutcomeRefused:
		t.Outcomes.Refused++
	}
	if c := p.Changes; c != nil {
		t.Changes.Add += c.Add
		t.Changes.Change += c.Change
		t.Changes.Destroy += c.Destroy
		t.Changes.Replace += c.Replace
		t.Changes.Import += c.Import
		t.Changes.Move += c.Move
		t.Changes.Drift += c.Drift
	}
	if p.Policy != nil {
		switch policy.Verdict(p.Policy.Verdict) {
		case policy.VerdictPass:
			t.Policy.Pass++
		case policy.VerdictWarn:
			t.Policy.Warn++
		case policy.VerdictDeny:
			t.Policy.Deny++
		case policy.VerdictError:
			t.Policy.Error++
		}
	}
}

func outcome(s report.Status) Outcome {
	switch {
	case s.Succeeded():
		return OutcomeOK
	case s == report.StatusInterrupted:
		return OutcomeInterrupted
	case s == report.StatusNotStarted:
		return OutcomeNotStarted
	case s == report.StatusRefused:
		return OutcomeRefused
	}
	return OutcomeFailed
}

func changes(s plan.Summary) *Changes {
	return &Changes{Add: s.Add, Change: s.Change, Destroy: s.Destroy, Replace: s.Replace, Import: s.Import, Move: s.Move, Drift: s.Drift}
}

// merged sums the phases of the same name, in the order each was first entered; each
// starts when first entered and finishes when last left.
func merged(phases []report.Phase) []Phase {
	out := []Phase{}
	index := map[string]int{}
	sums := []time.Duration{}
	for _, ph := range phases {
		i, ok := index[ph.Name]
		if !ok {
			i = len(out)
			index[ph.Name] = i
			out = append(out, Phase{Name: ph.Name})
			sums = append(sums, 0)
		}
		sums[i] += ph.Duration
		if ph.Start.IsZero() {
			continue
		}
		start, end := ph.Start.UTC().Truncate(time.Millisecond), ph.End().UTC().Truncate(time.Millisecond) // as the timeline draws them
		if out[i].Started == nil || start.Before(*out[i].Started) {
			out[i].Started = &start
		}
		if out[i].Finished == nil || end.After(*out[i].Finished) {
			out[i].Finished = &end
		}
	}
	for i := range out {
		out[i].Seconds = seconds(sums[i])
	}
	return out
}

// seconds is d in seconds, to the millisecond: finer is noise for a terraform run.
func seconds(d time.Duration) float64 {
	return math.Round(d.Seconds()*1000) / 1000
}
