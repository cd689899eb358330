package notify

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	tfconfig "github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/drift"
	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/render"
	"github.com/tfgate/tfgate/internal/report"
)

// DriftChange is one drift issue change: the Change, for the run's project at index Project.
type DriftChange struct {
	Project int
	Change
}

// PlanDriftIssues decides every drift issue change of a run from the issues tfgate listed
// (listDriftIssues): a pure function, so each case is a table row. An open issue that
// already says what the run would write is left alone (driftUnchanged).
func PlanDriftIssues(run report.Run, issues []github.Issue, id github.Identity, o DriftBodyOptions) []DriftChange {
	var out []DriftChange
	for i, p := range run.Projects {
		rs := Records(issues, DriftKind, p.Name, id)
		found := len(rs) > 0
		var is github.Issue
		prev, hasPrev := DriftState{}, false
		if found {
			is = rs[0]
			prev, hasPrev = ParseDriftState(is.Body)
		}
		open := found && is.State == "open"
		switch {
		case drift.Tracked(p.Status) && !found:
			st := DriftState{Status: p.Status, FirstSeen: o.Now}
			out = append(out, DriftChange{i, Change{Op: OpCreate, Title: DriftTitle(p), Body: DriftBody(p, st, o)}})
		case drift.Tracked(p.Status) && open:
			st := DriftState{Status: p.Status, FirstSeen: prev.FirstSeen}
			if !hasPrev || prev.FirstSeen.IsZero() {
				st.FirstSeen = o.Now
			}
			if driftUnchanged(is, p, st) {
				break // a steady night: the issue already says this (drift_digest.go)
			}
			out = append(out, DriftChange{i, Change{Op: OpEdit, Number: is.Number, Title: DriftTitle(p), Body: DriftBody(p, st, o)}})
		case drift.Tracked(p.Status):
			st := DriftState{Status: p.Status, FirstSeen: o.Now}
			out = append(out, DriftChange{i, Change{Op: OpReopen, Number: is.Number, Title: DriftTitle(p), Body: DriftBody(p, st, o),
				Note: fmt.Sprintf("%s **%s** again at %s; reopening. The issue body has the details.",
					render.DriftIcon(p.Status), word(p.Status), stamp(o.Now))}})
		case p.Status == report.StatusInSync && open:
			st := DriftState{Status: p.Status, FirstSeen: prev.FirstSeen}
			if st.FirstSeen.IsZero() {
				st.FirstSeen = o.Now
			}
			out = append(out, DriftChange{i, Change{Op: OpClose, Number: is.Number, Body: DriftBody(p, st, o),
				Note: fmt.Sprintf("✅ Back in sync at %s: infrastructure, state and code agree. Closing; tfgate reopens this issue if the project drifts again.", stamp(o.Now))}})
		}
		for _, c := range Duplicates(issues, DriftKind, p.Name, id) {
			out = append(out, DriftChange{i, c})
		}
	}
	return out
}

func word(s report.Status) string {
	switch s {
	case report.StatusPending:
		return "code in Git not applied"
	case report.StatusFailed:
		return "drift check failed"
	case report.StatusCheckFailed:
		return "check failed"
	}
	return "drifted"
}

// DriftIssues configure PublishDriftIssues.
type DriftIssues struct {
	API      github.API
	Repo     github.Repo
	Identity string   // config github.identity; "" = find out
	Labels   []string // nil = DriftLabels
	Body     DriftBodyOptions
}

// PublishDriftIssues keeps one issue per project up to date (a Tracker of kind drift) and
// returns the run with each project's issue URL. It lists the open labelled issues once,
// whatever the number of projects (and the closed ones only when a project needs an issue
// and has no open one: listDriftIssues); then each change costs one call (two to close or
// reopen: the note and the edit), an unchanged issue none, and the labels are listed (and
// created when missing) only when an issue is created. Every project is attempted; the
// error names those that failed.
func PublishDriftIssues(ctx context.Context, o DriftIssues, run report.Run) (report.Run, error) {
	labels := o.Labels
	if len(labels) == 0 {
		labels = DriftLabels
	}
	id, err := github.IdentityOf(ctx, o.API, o.Identity) // learnt once per run (fold-back pull requests ask too)
	if err != nil {
		return run, err
	}
	t := Tracker{API: o.API, Repo: o.Repo, Identity: id, Kind: DriftKind, Labels: labels,
		LabelColor: "d93f0b", LabelDescription: "Infrastructure differs from Git (tfgate drift)"}
	issues, err := listDriftIssues(ctx, t, run, id)
	if err != nil {
		return run, err
	}
	projects := slices.Clone(run.Projects)
	run.Projects = projects
	changes := PlanDriftIssues(run, issues, id, o.Body)
	var errs []string
	if slices.ContainsFunc(changes, func(c DriftChange) bool { return c.Op == OpCreate }) {
		if err := t.EnsureLabels(ctx); err != nil {
			errs = append(errs, err.Error())
		}
	}
	for i, p := range projects {
		if is, ok := t.Find(issues, p.Name); ok && is.State == "open" {
			projects[i].Issue = is.HTMLURL
		}
	}
	for _, c := range changes {
		is, err := t.Apply(ctx, c.Change)
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %s issue: %v", projects[c.Project].Name, c.Op, err))
			continue
		}
		if c.Op == OpDuplicate {
			kept, _ := t.Find(issues, projects[c.Project].Name)
			run.Notes = append(slices.Clip(run.Notes), DuplicateNote(DriftKind, projects[c.Project].Name, c.Number, kept.Number))
			continue
		}
		projects[c.Project].Issue = is.HTMLURL
		if c.Op == OpCreate && is.Author.Login != "" && !id.Is(is.Author) {
			// The identity was a guess (a GitHub App's token may not call GET /user either):
			// without the real login the next run would not find this issue and open another.
			errs = append(errs, fmt.Sprintf("tfgate writes as %s, not %s (%s): set github.identity: %q in %s so that the next run finds its issues",
				is.Author.Login, id.Login, id.Source, is.Author.Login, tfconfig.FileName))
		}
	}
	if len(errs) > 0 {
		return run, errors.New(strings.Join(errs, "; "))
	}
	return run, nil
}
