package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/tfgate/tfgate/internal/drift"
	"github.com/tfgate/tfgate/internal/git"
	"github.com/tfgate/tfgate/internal/plan"
	"github.com/tfgate/tfgate/internal/project"
	"github.com/tfgate/tfgate/internal/report"
	"github.com/tfgate/tfgate/internal/stage"
)

// SuggestFunc proposes the code edits that would accept a project's drift (drift.Suggest):
// each attribute's file, line and edit, or why it cannot be folded back. See foldBack.
type SuggestFunc func(root string, p project.Project, drifted []plan.Resource) []drift.Suggestion

// DriftRequest is everything `tfgate drift` was asked to do.
type DriftRequest struct {
	stage.Env
	Names   []string    // explicit projects; none = every project whose config does not say drift: false
	Suggest SuggestFunc // nil: no fold-back suggestions
	// PatchFile, when set, receives the foldable suggestions of every project as one
	// unified diff (git apply) a human can review and commit.
	PatchFile string
}

// RunDrift is `tfgate drift`: select the projects, find terraform and check each project on
// the current commit with one normal plan, in the same worker pool and stages as plan. A
// project that cannot be checked is in the run (failed), not an error; the error is for what
// stops the whole run, and for an interrupted run, whose results are still returned.
func RunDrift(ctx context.Context, req DriftRequest) (report.Run, error) {
	run := report.Run{Kind: report.KindDrift}
	req.Defaults()
	if req.Parallel < 0 {
		return run, stage.Optionf("{Parallel} %d: want a positive number (0 = number of CPUs)", req.Parallel)
	}
	sel, err := stage.Select(ctx, stage.SelectOptions{Root: req.Root, Config: req.Config, Names: req.Names, All: len(req.Names) == 0})
	if err != nil {
		return run, err
	}
	projects, skipped := sel.Projects, []string(nil)
	if len(req.Names) == 0 {
		projects = nil
		for _, p := range sel.Projects {
			if p.SkipDrift {
				skipped = append(skipped, p.Name)
				continue
			}
			projects = append(projects, p)
		}
	}
	if len(skipped) > 0 {
		run.Notes = append(run.Notes, fmt.Sprintf("Not checked (drift: false in the config): %s.", strings.Join(skipped, ", ")))
	}
	if len(projects) == 0 {
		return run, nil
	}
	bin, err := stage.ResolveTerraform(ctx, req.Config, req.Terraform)
	if err != nil {
		return run, err
	}
	req.Log.Info("terraform", "path", bin.Path, "version", bin.Version, "flavor", bin.Flavor)
	if head, err := (git.Git{Dir: req.Root}).Head(ctx); err == nil {
		run.Commit = head
	}
	var mu sync.Mutex
	var foldable []drift.Suggestion
	suggest := req.Suggest
	if suggest != nil && req.PatchFile != "" {
		suggest = func(root string, p project.Project, drifted []plan.Resource) []drift.Suggestion {
			s := req.Suggest(root, p, drifted)
			mu.Lock()
			defer mu.Unlock()
			foldable = append(foldable, s...)
			return s
		}
	}
	// The tree terraform runs in holds the shared files (stage/scope.go).
	shared, err := stage.SharedSums(ctx, req.Root, sel.All, req.Config, "")
	if err != nil {
		return run, err
	}
	checked, err := checkDrift(ctx, stage.PlanOptions{Env: req.Env, Projects: projects, Binary: bin,
		PluginCacheDir: stage.PluginCacheDir(req.Config, req.Terraform), SharedSums: shared}, suggest)
	run.Projects = checked.Projects
	run.Notes = append(run.Notes, checked.Notes...)
	if err == nil && req.PatchFile != "" {
		err = writePatch(req, foldable)
	}
	return run, err
}

// writePatch writes the unified diff of the foldable suggestions (an empty file when there
// is nothing to fold back). Fail closed: a patch that would hold a secret is not written.
func writePatch(req DriftRequest, s []drift.Suggestion) error {
	slices.SortStableFunc(s, func(a, b drift.Suggestion) int { return strings.Compare(a.File, b.File) })
	patch, err := drift.Patch(req.Root, s)
	if err != nil {
		return stage.Optionf("{PatchFile}: %w", err)
	}
	if req.Masker.String(patch) != patch {
		return stage.Optionf("{PatchFile} %s: not written: the edits would put a secret value into the file", req.PatchFile)
	}
	if err := os.WriteFile(req.PatchFile, []byte(patch), 0o644); err != nil {
		return stage.Optionf("{PatchFile}: %w", err)
	}
	return nil
}

// driftStages: what `tfgate drift` does to each project — plan's stages up to show, with
// no input hash, policies or bundle. The plan file goes to a scratch directory removed at
// the end; the plan refreshes in memory and writes no state; terraform takes the state lock
// as for any plan.
var driftStages = []stage.Stage{
	{Phase: "", Run: stage.CheckProblems},
	{Phase: "", Run: stage.RefuseTerraformFiles},
	{Phase: "", Run: stage.InitProject}, // reports "waiting" and "init" itself
	{Phase: "workspace", Run: stage.SelectWorkspace},
	{Phase: "plan", Run: stage.PlanProject},
	{Phase: "show", Run: stage.ShowPlan},
}

// checkDrift plans every project read-only, each in a scratch directory removed after it,
// with the pool plan uses, and returns the run's projects: each drifted, pending or in sync
// (drift.Status) with the edits that would fold its drift back (foldBack), or failed. An
// interrupted check is an error.
func checkDrift(ctx context.Context, opts stage.PlanOptions, suggest SuggestFunc) (report.Run, error) {
	run := report.Run{Kind: report.KindDrift}
	if err := opts.Defaults(); err != nil {
		return run, err
	}
	opts.OutDir = ""     // never a bundle: nothing of a drift check may be applied
	opts.ReadOnly = true // and never a new workspace: that writes state
	work, err := os.MkdirTemp("", "tfgate-drift-")
	if err != nil {
		return run, err
	}
	defer os.RemoveAll(work)
	dirs := stage.BundleDirs(opts.Projects)
	opts.Procs = stage.TerraformProcs(opts.Parallel, stage.DirCount(opts.Projects))
	conds := &failedConditions{checks: map[string][]plan.Check{}}
	run.Projects = stage.ForEach(ctx, opts.Projects, stage.PoolOptions{Limit: opts.Parallel, Progress: opts.Progress, Now: opts.Now},
		func(ctx context.Context, p project.Project, phase func(string)) report.Project {
			i := indexOf(opts.Projects, p)
			dir := filepath.Join(work, dirs[i])
			defer os.RemoveAll(dir) // the plan file holds secrets in clear text
			pr := &stage.ProjectRun{Opts: &opts, Project: p, Dir: dir, Phase: phase, Detail: stage.DetailOf(opts.Progress, p.Name)}
			r := stage.RunStages(ctx, pr, driftStagesWith(conds, suggest))
			if r.Status == report.StatusPlanned {
				r.Status = drift.Status(r.Changes)
			} else if checks := conds.of(pr); len(checks) > 0 && r.Changes == nil {
				r.Changes = &plan.Changes{Checks: checks} // the failed conditions, beside the error
			}
			return r
		})
	if note := opts.GuardNote(); note != "" {
		run.Notes = append(run.Notes, note)
	}
	if err := ctx.Err(); err != nil {
		return run, fmt.Errorf("drift check interrupted: %w", err)
	}
	return run, nil
}

// foldBack attaches the edits that would accept the drift to the project's result.
//
// Suggest (drift.Suggest) finds, for each drifted attribute, the literal in the project's own
// files to edit, or why it cannot be folded back; the lines read `File:Line  Attribute = Old
// → New` or `Address.Attribute: Reason`, masked like everything else.
func foldBack(_ context.Context, r *stage.ProjectRun, suggest SuggestFunc) error {
	if suggest == nil || r.Result.Changes == nil || len(r.Result.Changes.Drift) == 0 {
		return nil
	}
	var lines []string
	for _, s := range suggest(r.Opts.Root, r.Project, r.Result.Changes.Drift) {
		lines = append(lines, r.Masker.String(s.String()))
	}
	r.Result.Suggestions = lines
	return nil
}

func indexOf(ps []project.Project, p project.Project) int {
	for i := range ps {
		if ps[i].Name == p.Name && ps[i].Workspace == p.Workspace {
			return i
		}
	}
	return 0
}
