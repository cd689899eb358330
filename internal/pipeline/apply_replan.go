package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

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
func (a *review) replans() bool {
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
	dir := filepath.Join(a.scratch, "replan", bundle.DirName(t.p.Name, t.p.Workspace))
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
	if diff := replanDiff(saved, now); len(diff) > 0 {
		t.problems = append(t.problems, gate.Reason{Code: gate.CodeReplan, Text: fmt.Sprintf("a plan of the merge made now (apply.verify: %s) differs from the reviewed plan: %s; the reviewed plan is not what terraform would do: plan it again",
			config.VerifyReplan, clipList(diff))})
	}
	return nil
}

// replanDiff says how the changes now differ from the saved plan's, resource by resource:
// one only in either, another action, another known value of an attribute (values as the
// review shows them: a sensitive value is compared only as "(sensitive)").
func replanDiff(saved, now *plan.Changes) []string {
	key := func(r plan.Resource) string {
		if r.Deposed != "" {
			return r.Address + " (deposed " + r.Deposed + ")"
		}
		return r.Address
	}
	before := map[string]plan.Resource{}
	for _, r := range saved.Resources {
		before[key(r)] = r
	}
	var out []string
	seen := map[string]bool{}
	for _, r := range now.Resources {
		k := key(r)
		seen[k] = true
		old, ok := before[k]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("%s is to %s now, the reviewed plan leaves it", k, r.Action))
		case old.Action != r.Action:
			out = append(out, fmt.Sprintf("%s is to %s now, the reviewed plan would %s it", k, r.Action, old.Action))
		default:
			if d := attributeDiff(old.Attributes, r.Attributes); d != "" {
				out = append(out, k+": "+d)
			}
		}
	}
	for _, r := range saved.Resources {
		if !seen[key(r)] {
			out = append(out, fmt.Sprintf("the reviewed plan would %s %s, a plan now leaves it", r.Action, key(r)))
		}
	}
	slices.Sort(out)
	return out
}

// attributeDiff names the first attribute whose planned value differs.
func attributeDiff(saved, now []plan.Attribute) string {
	after := map[string]plan.Value{}
	for _, a := range saved {
		after[a.Path] = a.After
	}
	var paths []string
	for _, a := range now {
		old, ok := after[a.Path]
		if !ok || old != a.After {
			paths = append(paths, a.Path)
			if ok {
				return fmt.Sprintf("%s is %s now, %s in the reviewed plan", a.Path, a.After.Text, old.Text)
			}
		}
		delete(after, a.Path)
	}
	for p := range after {
		paths = append(paths, p)
	}
	if len(paths) > 0 {
		slices.Sort(paths)
		return "attributes " + strings.Join(paths, ", ") + " differ"
	}
	return ""
}
