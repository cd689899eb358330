package pipeline

import (
	"context"
	"errors"
	"fmt"

	"github.com/tfgate/tfgate/internal/project"
	"github.com/tfgate/tfgate/internal/report"
	"github.com/tfgate/tfgate/internal/stage"
	"github.com/tfgate/tfgate/internal/terraform"
)

// applyStages: what apply does to each allowed project, from a fresh checkout of the
// merge commit, keeping its record rec in the state backend (apply_record.go). The
// workspace must exist (the plan created it): apply never makes one.
func applyStages(rec *applyRecord) []stage.Stage {
	return []stage.Stage{
		{Phase: "", Run: stage.RefuseTerraformFiles},
		{Phase: "", Run: stage.InitProject}, // reports "waiting" and "init" itself
		{Phase: "workspace", Run: func(ctx context.Context, r *stage.ProjectRun) error { return recordApply(ctx, r, rec) }}, // and refuses when an earlier apply was cut off
		{Phase: "apply", Run: func(ctx context.Context, r *stage.ProjectRun) error { return applyPlan(ctx, r, rec) }},
	}
}

// apply applies every allowed target in depends_on order, at most Parallel at once. A
// refused or failed target stays as judged, and the projects that depend on it do not
// start. In a dry run nothing is applied: allowed targets stay allowed.
func (a *review) apply(ctx context.Context) error {
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
	opts.Procs = stage.TerraformProcs(a.req.Parallel, stage.DirCount(applied))
	a.run.Projects = stage.ForEach(ctx, projects, stage.PoolOptions{Limit: a.req.Parallel, Progress: a.req.Progress, Ordered: true, Now: a.req.Now},
		func(ctx context.Context, p project.Project, phase func(string)) report.Project {
			t := byName[p.Name]
			if t.result.Status != report.StatusAllowed || a.req.DryRun {
				return t.result
			}
			r := &stage.ProjectRun{Opts: opts, Project: p, Dir: t.dir, Phase: phase, Detail: stage.DetailOf(a.req.Progress, p.Name),
				PlanFile: t.opened.PlanPath, LockTimeout: a.req.LockTimeout}
			rec := a.newRecord(t)
			stages := applyStages(rec)
			if t.tf != nil { // derive initialised it
				r.TF, stages = t.tf, stages[1:]
			}
			res := stage.RunStages(ctx, r, stages)
			out := t.result
			out.Status, out.Error = report.StatusApplied, ""
			if res.Status != report.StatusPlanned {
				out.Status, out.Error = res.Status, res.Error
				a.refuseAppliedFirst(&out, p, rec.stale) // apply_first.go
			} else if rec.already != "" && out.Apply != nil {
				applied := *out.Apply
				applied.Already = rec.already
				out.Apply = &applied
			}
			return out
		})
	a.noteAlready()
	stateNotes(&a.run)
	if note := opts.GuardNote(); note != "" {
		a.run.Notes = append(a.run.Notes, note)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("apply interrupted: %w", err)
	}
	return nil
}

// applyPlan applies the verified plan file, and nothing else. Terraform's own refusals
// get a sentence that says what happened and what to do.
func applyPlan(ctx context.Context, r *stage.ProjectRun, rec *applyRecord) error {
	progress := stage.NewDetailer(r.Opts.Now, r.Detail, terraform.ApplyDetail)
	err := r.TF.Apply(ctx, r.PlanFile, terraform.ApplyOptions{LockTimeout: r.LockTimeout, Progress: progress.Update})
	err = finishApply(ctx, r, rec, err)
	switch {
	case err == nil:
		return nil
	case terraform.IsStalePlan(err):
		// Perhaps its own: an earlier run of this merge applied it (apply_applied.go).
		how, why, aerr := appliedBefore(ctx, r)
		switch {
		case aerr != nil:
			err = errors.Join(err, fmt.Errorf("(whether an earlier run applied it could not be checked: %w)", aerr))
		case how != "":
			rec.already = how
			return nil
		default:
			rec.stale = true
			err = errors.Join(errors.New(why), err)
		}
		return errors.Join(errors.New("the reviewed plan is stale: the state changed since it was planned (another apply — perhaps this one, run before — or a change outside this pull request). Nothing was applied twice; plan the project again in a new pull request"), err)
	case terraform.IsLocked(err):
		return errors.Join(fmt.Errorf("the state is locked by another run (waited %s): nothing was applied; re-run the apply once that run has finished", r.LockTimeout), err)
	}
	return err
}
