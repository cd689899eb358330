package pipeline

import (
	"context"
	"errors"
	"fmt"

	"github.com/tfgate/tfgate/internal/project"
	"github.com/tfgate/tfgate/internal/report"
	"github.com/tfgate/tfgate/internal/terraform"
)

// applyStages: what apply does to each allowed project, from a fresh checkout of the
// merge commit, keeping its record rec in the state backend (apply_record.go). The
// workspace must exist (the plan created it): apply never makes one.
func applyStages(rec *applyRecord) []stage {
	return []stage{
		{"", refuseTerraformFiles},
		{"", initProject}, // reports "waiting" and "init" itself
		{"workspace", func(ctx context.Context, r *projectRun) error { return recordApply(ctx, r, rec) }}, // and refuses when an earlier apply was cut off
		{"apply", func(ctx context.Context, r *projectRun) error { return applyPlan(ctx, r, rec) }},
	}
}

// apply applies every allowed target in depends_on order, at most Parallel at once. A
// refused or failed target stays as judged, and the projects that depend on it do not
// start. In a dry run nothing is applied: allowed targets stay allowed.
func (a *applier) apply(ctx context.Context) error {
	if len(a.targets) == 0 {
		return nil
	}
	byName := make(map[string]*target, len(a.targets))
	projects := make([]project.Project, len(a.targets))
	for i := range a.targets {
		byName[a.targets[i].p.Name] = &a.targets[i]
		projects[i] = a.targets[i].p
	}
	opts, err := a.runOptions()
	if err != nil {
		return err
	}
	var applied []project.Project // what runs terraform: allowed, not a dry run
	for _, t := range a.targets {
		if t.result.Status == report.StatusAllowed && !a.req.DryRun {
			applied = append(applied, t.p)
		}
	}
	opts.procs = terraformProcs(a.req.Parallel, dirCount(applied))
	a.run.Projects = forEach(ctx, projects, poolOptions{Limit: a.req.Parallel, Progress: a.req.Progress, Ordered: true, Now: a.req.Now},
		func(ctx context.Context, p project.Project, phase func(string)) report.Project {
			t := byName[p.Name]
			if t.result.Status != report.StatusAllowed || a.req.DryRun {
				return t.result
			}
			r := &projectRun{opts: opts, p: p, dir: t.dir, phase: phase, detail: detailOf(a.req.Progress, p.Name),
				planFile: t.opened.PlanPath, lockTimeout: a.req.LockTimeout}
			stages := applyStages(a.newRecord(t))
			if t.tf != nil { // derive initialised it
				r.tf, stages = t.tf, stages[1:]
			}
			res := runStages(ctx, r, stages)
			out := t.result
			out.Status, out.Error = report.StatusApplied, ""
			if res.Status != report.StatusPlanned {
				out.Status, out.Error = res.Status, res.Error
			}
			return out
		})
	stateNotes(&a.run)
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("apply interrupted: %w", err)
	}
	return nil
}

// applyPlan applies the verified plan file, and nothing else. Terraform's own refusals
// get a sentence that says what happened and what to do.
func applyPlan(ctx context.Context, r *projectRun, rec *applyRecord) error {
	progress := newDetailer(r.opts.Now, r.detail, applyDetail)
	err := r.tf.Apply(ctx, r.planFile, terraform.ApplyOptions{LockTimeout: r.lockTimeout, Progress: progress.update})
	err = finishApply(ctx, r, rec, err)
	switch {
	case err == nil:
		return nil
	case terraform.IsStalePlan(err):
		return errors.Join(errors.New("the reviewed plan is stale: the state changed since it was planned (another apply — perhaps this one, run before — or a change outside this pull request). Nothing was applied twice; plan the project again in a new pull request"), err)
	case terraform.IsLocked(err):
		return errors.Join(fmt.Errorf("the state is locked by another run (waited %s): nothing was applied; re-run the apply once that run has finished", r.lockTimeout), err)
	}
	return err
}
