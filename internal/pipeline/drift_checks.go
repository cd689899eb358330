package pipeline

import (
	"context"
	"os"
	"sync"

	"github.com/tfgate/tfgate/internal/plan"
	"github.com/tfgate/tfgate/internal/stage"
)

// failedConditions remembers, per project, the checks an errored drift plan reported: a
// resource's or output's pre- or postcondition that fails on refresh fails terraform's
// plan, so the project is an error (its drift is unknown), but the failed conditions are
// still reported as check failures beside the error.
type failedConditions struct {
	mu     sync.Mutex
	checks map[string][]plan.Check // by project name and workspace
}

func conditionKey(r *stage.ProjectRun) string { return r.Project.Name + "\x00" + r.Project.Workspace }

// plan is drift's plan stage: stage.PlanProject, and when terraform fails but still wrote
// an errored plan file, the failed checks read from it (show -json, masked like any plan).
// The plan's own error is returned unchanged: the project stays an error.
func (f *failedConditions) plan(ctx context.Context, r *stage.ProjectRun) error {
	err := stage.PlanProject(ctx, r)
	if err == nil || ctx.Err() != nil {
		return err
	}
	if _, serr := os.Stat(r.PlanFile); serr != nil {
		return err
	}
	raw, serr := r.TF.ShowPlan(ctx, r.PlanFile)
	if serr != nil {
		return err
	}
	c, _ := plan.Read(raw, plan.Options{Masker: r.Masker}) // an errored plan is still read
	if c != nil && len(c.Checks) > 0 {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.checks[conditionKey(r)] = c.Checks
	}
	return err
}

// of are the failed checks remembered for a project's errored plan (none when it planned).
func (f *failedConditions) of(r *stage.ProjectRun) []plan.Check {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.checks[conditionKey(r)]
}

// driftStagesWith are driftStages with the plan stage that keeps an errored plan's failed
// conditions, then fold-back.
func driftStagesWith(f *failedConditions, suggest SuggestFunc) []stage.Stage {
	out := make([]stage.Stage, 0, len(driftStages)+1)
	for _, s := range driftStages {
		if s.Phase == "plan" {
			s.Run = f.plan
		}
		out = append(out, s)
	}
	return append(out, stage.Stage{Phase: "", Run: func(ctx context.Context, r *stage.ProjectRun) error { return foldBack(ctx, r, suggest) }})
}
