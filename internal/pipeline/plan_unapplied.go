package pipeline

import (
	"context"
	"fmt"
	"slices"

	"github.com/tfgate/tfgate/internal/bundle"
	"github.com/tfgate/tfgate/internal/gate"
	"github.com/tfgate/tfgate/internal/git"
	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/project"
	"github.com/tfgate/tfgate/internal/stage"
)

// What a pull request's plan is planned on. A plan made while merges of the default branch
// wait to be applied (their apply run is queued, running, or was cancelled) is made on the
// state before their apply, and apply refuses it once they are applied (apply_first.go).
// So a plan of a pull request looks back along the default branch from what it is planned
// on, with apply's own catch-up walk (unappliedFrom: back to the last commit with tfgate's
// tfgate/apply verdict), and records in each bundle the merges found that changed its
// project; its comment says so, and `tfgate gate` holds tfgate/gate pending on it
// (gate.PlannedUnapplied) until the project is planned again after them — notify-stale
// re-plans it once they are applied. When the walk cannot tell, the bundles say why and
// the gate refuses (fail closed). In the steady state (main's tip applied) it costs one
// request, and learning tfgate's identity.

// unappliedPlan is what a plan found of the merges it is planned on.
type unappliedPlan struct {
	byProject map[string][]bundle.UnappliedMerge // project → merges that changed it
	unknown   string                             // why it could not be told; "" = it was
	note      string                             // the run's note; "" = none
}

// planUnapplied looks for merges no run applied below req.Base (the default branch's
// commit the pull request is planned on), and which of projects each changed.
func planUnapplied(ctx context.Context, req PlanRequest, projects []project.Project) unappliedPlan {
	gh := req.GitHub
	if gh == nil || gh.API == nil || !gh.Event.ForPullRequest() || gh.Event.Fork || req.Base == "" || len(projects) == 0 {
		return unappliedPlan{}
	}
	f := runFacts{gatherer: gatherer{Env: req.Env, gh: gh}, repo: github.Repo{Owner: gh.Event.Owner, Name: gh.Event.Repo}}
	checkout := git.Git{Dir: req.Root}
	out, err := f.unappliedChanges(ctx, checkout, req.Base, projects)
	if err != nil {
		out.unknown = req.Masker.String(err.Error())
		req.Warn("tfgate/gate will refuse these plans: " + out.unknown)
	}
	return out
}

// unappliedChanges walks back from base (unappliedFrom) and maps each merge found to the
// projects it changed.
func (a *runFacts) unappliedChanges(ctx context.Context, checkout git.Git, base string, projects []project.Project) (unappliedPlan, error) {
	out := unappliedPlan{}
	id, err := github.IdentityOf(ctx, a.gh.API, a.gh.Identity)
	if err != nil {
		return out, fmt.Errorf("who tfgate is (the author of tfgate/apply) could not be learnt: %w", err)
	}
	found, tooFar, err := a.unappliedFrom(ctx, checkout, id, base, DefaultCatchUp)
	if err != nil {
		return out, err
	}
	if tooFar != nil {
		return out, fmt.Errorf("none of the last %d commits of the default branch (%s back to %s) has a tfgate/apply verdict set by %s: which merges were applied cannot be told",
			DefaultCatchUp, git.ShortSHA(tooFar[0]), git.ShortSHA(tooFar[DefaultCatchUp-1]), id.Login)
	}
	if len(found) == 0 {
		return out, nil
	}
	top, err := git.TopLevel(ctx, a.Root)
	if err != nil {
		return out, err
	}
	prefix, err := stage.RootPrefix(top, a.Root)
	if err != nil {
		return out, err
	}
	out.byProject = map[string][]bundle.UnappliedMerge{}
	byName := map[string][]gate.Merge{}
	for _, m := range found {
		files, err := checkout.DiffFiles(ctx, m.base, m.commit)
		if err != nil {
			return out, err
		}
		var names []string
		for _, t := range project.ChangedWhy(projects, stage.RootRelative(prefix, files)) {
			names = append(names, t.Project.Name)
		}
		for _, name := range slices.Compact(names) {
			out.byProject[name] = append(out.byProject[name], bundle.UnappliedMerge{PR: m.pr, Commit: m.commit})
			byName[name] = append(byName[name], gate.Merge{PR: m.pr, Commit: m.commit})
		}
	}
	order := make([]string, len(projects))
	for i, p := range projects {
		order[i] = p.Name
	}
	out.note = gate.UnappliedNote(byName, slices.Compact(order))
	return out, nil
}

// unappliedReasons are the gate's reasons for a bundle planned on unapplied merges (m's
// record of them).
func unappliedReasons(m bundle.Manifest) []gate.Reason {
	merges := make([]gate.Merge, len(m.Unapplied))
	for i, u := range m.Unapplied {
		merges[i] = gate.Merge{PR: u.PR, Commit: u.Commit}
	}
	return append(gate.PlannedUnapplied(merges), gate.UnappliedUnknown(m.UnappliedUnknown)...)
}
