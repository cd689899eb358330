package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tfgate/tfgate/internal/bundle"
	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/gate"
	"github.com/tfgate/tfgate/internal/plan"
	"github.com/tfgate/tfgate/internal/stage"
	"github.com/tfgate/tfgate/internal/terraform"
)

// apply.verify: replan — the merge commit planned again, at apply time, must plan the same
// changes as the saved plan. It is the one check that covers what a plan file cannot prove
// of itself: the values of its variables (-var, TF_VAR_ of the run that made it) and the
// world since it was planned (objects changed outside terraform). It costs a whole plan
// (a refresh of every object) per project, which is why it is not the default.

// replans reports whether the rules ask apply to plan the merge again.
func (a *runFacts) replans() bool {
	for _, cfg := range append([]*config.Config{a.base}, a.extraRules...) {
		if cfg.Apply.Verify == config.VerifyReplan {
			return true
		}
	}
	return false
}

// replan plans the merge commit in the target's workspace and compares the changes with
// the saved plan's; what differs is a problem.
func (a *review) replan(ctx context.Context, r *stage.ProjectRun, t *target, saved *plan.Changes) error {
	r.Phase("replan")
	dir := filepath.Join(r.TempDir(), "replan") // terraform may write there (the read guard)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	defer os.RemoveAll(dir) // the new plan holds secrets in clear text too
	if err := r.TF.SelectWorkspace(ctx, t.p.Workspace); err != nil {
		return err
	}
	lock := a.req.LockTimeout
	if lock <= 0 {
		lock = r.Opts.LockTimeout
	}
	out := filepath.Join(dir, bundle.PlanFile)
	if _, err := r.TF.Plan(ctx, terraform.PlanOptions{Out: out, VarFiles: t.p.VarFiles, LockTimeout: lock}); err != nil {
		return fmt.Errorf("plan the merge again (apply.verify: %s): %w", config.VerifyReplan, err)
	}
	raw, err := r.TF.ShowPlan(ctx, out)
	if err != nil {
		return err
	}
	now, err := plan.Read(raw, plan.Options{Masker: r.Masker})
	if err != nil {
		return fmt.Errorf("read the new plan of %s: %w", t.p.Name, err)
	}
	t.problems = append(t.problems, gate.Replan(saved, now)...)
	return nil
}
