package pipeline

import (
	"archive/zip"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tfgate/tfgate/internal/bundle"
	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/gate"
	"github.com/tfgate/tfgate/internal/plan"
	"github.com/tfgate/tfgate/internal/policy"
	"github.com/tfgate/tfgate/internal/project"
	"github.com/tfgate/tfgate/internal/report"
	"github.com/tfgate/tfgate/internal/stage"
)

// What apply derives from the plan file itself rather than trusting its manifest: a writer
// on the repository can run the plan workflow from a branch of their own, so everything a
// pull request's run produced — the manifest's summary, destroy count and policy verdict,
// even the configuration inside the plan file — could be theirs. Only the plan file is
// applied, so only it is judged: its configuration snapshot must be the merged code
// (bundle.CheckSnapshot), its kind a normal plan of the whole configuration (unless the
// base's apply.allow_modes allows more), and its changes and policy verdict are computed
// again from `show -json` of it, with the policies of the base commit. A manifest that
// disagrees is refused; the gate judges the derived values.

// derived is what apply computed from a target's plan file.
type derived struct {
	summary plan.Summary
	// destroyed are the addresses the plan deletes or replaces, for messages.
	destroyed []string
	policy    *bundle.PolicyVerdict // nil: no policies before the merge
}

// destroys reports whether the plan deletes or replaces anything.
func (d *derived) destroys() bool { return d.summary.Destroy > 0 || d.summary.Replace > 0 }

// ruleEngine is one base commit's policies.
type ruleEngine struct {
	pols stage.Policies
	rev  string
}

// derive initialises every target whose bundle opened and verified and derives its changes
// and verdict from its plan file. A target whose plan file does not hold what was
// reviewed gets problems; one whose terraform failed, a failure. The runners stay
// initialised for the apply.
func (a *review) derive(ctx context.Context) error {
	var todo []project.Project
	byName := map[string]*target{}
	for i := range a.targets {
		t := &a.targets[i]
		if t.bundle == nil || t.failure != "" || t.opened.PlanPath == "" || len(t.problems) > 0 {
			continue // refused (or failed) already: terraform reads nothing of it
		}
		todo = append(todo, t.p)
		byName[t.p.Name] = t
	}
	if len(todo) == 0 {
		return nil
	}
	loading := a.req.Now()
	engines, err := a.loadRuleEngines(ctx)
	if err != nil {
		return fmt.Errorf("load the policies before the merge: %w", err)
	}
	a.req.Log.Info("apply loaded the policies before the merge", "engines", len(engines), "took", a.req.Now().Sub(loading))
	opts, err := a.runOptions()
	if err != nil {
		return err
	}
	opts.Procs = stage.TerraformProcs(a.req.Parallel, stage.DirCount(todo))
	stages := []stage.Stage{{Phase: "", Run: stage.InitProject}} // reports "waiting" and "init" itself
	// The phases go on in the apply's (which starts with the next one); the result is the
	// apply's, so it is not reported here.
	progress := unfinished{a.req.Progress}
	stage.ForEach(ctx, todo, stage.PoolOptions{Limit: a.req.Parallel, Now: a.req.Now, Progress: progress},
		func(ctx context.Context, p project.Project, phase func(string)) report.Project {
			t := byName[p.Name]
			r := &stage.ProjectRun{Opts: opts, Project: p, Dir: t.dir, Phase: phase, Detail: stage.DetailOf(a.req.Progress, p.Name)}
			inspect := stage.Stage{Phase: "verify", Run: func(ctx context.Context, r *stage.ProjectRun) error { return a.inspect(ctx, r, t, engines) }}
			res := stage.RunStages(ctx, r, append(stages, inspect))
			if res.Status == report.StatusFailed {
				t.failure = res.Error
				return res
			}
			t.tf = r.TF
			phase("gate") // until the apply starts: the reviews, the gate, the projects it waits for
			return res
		})
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("apply interrupted: %w", err)
	}
	for _, t := range byName { // fail closed: nothing is applied on the manifest's word
		if t.derived == nil && t.failure == "" && len(t.problems) == 0 {
			t.failure = "apply could not derive the changes of its plan file: nothing was applied"
		}
	}
	return nil
}

// unfinished passes on a project's phases but not its result.
type unfinished struct{ stage.Progress }

func (unfinished) Finished(report.Project) {}

// runOptions are the terraform options apply runs every project with (once per run: the
// plugin cache is opened once).
func (a *review) runOptions() (*stage.PlanOptions, error) {
	if a.runOpts != nil {
		return a.runOpts, nil
	}
	opts := &stage.PlanOptions{Env: a.req.Env, Binary: a.bin, ReadOnly: true,
		PluginCacheDir: stage.PluginCacheDir(a.req.Config, a.req.Terraform)}
	if err := opts.Defaults(); err != nil {
		return nil, err
	}
	a.runOpts = opts
	return opts, nil
}

// loadRuleEngines loads the policies of every commit the rules come from (none when none
// has policies).
func (a *review) loadRuleEngines(ctx context.Context) ([]ruleEngine, error) {
	if !a.policies {
		return nil, nil
	}
	var out []ruleEngine
	for _, rev := range a.ruleRevs {
		pols, err := stage.LoadPolicies(ctx, stage.PolicyOptions{Root: a.req.Root, Config: a.req.Config, ConfigFile: a.req.ConfigFile,
			From: stage.PoliciesFromBase, BaseRev: rev, Changed: a.changed})
		if err != nil {
			return nil, err
		}
		if pols.Engine != nil {
			out = append(out, ruleEngine{pols: pols, rev: rev})
		}
	}
	return out, nil
}

// inspect is the stage that judges one target's plan file after init.
func (a *review) inspect(ctx context.Context, r *stage.ProjectRun, t *target, engines []ruleEngine) error {
	start := a.req.Now()
	zr, err := zip.OpenReader(t.opened.PlanPath)
	if err != nil {
		t.problems = append(t.problems, gate.Reason{Code: gate.CodeNotPlanFile, Text: fmt.Sprintf("its plan file is not a terraform plan file (%v): plan again", err)})
		return nil
	}
	defer zr.Close()
	kind, err := bundle.ReadPlanKind(&zr.Reader)
	if err != nil {
		t.problems = append(t.problems, gate.Reason{Code: gate.CodeNotPlanFile, Text: fmt.Sprintf("its plan file is not one terraform wrote (%v): plan again", err)})
		return nil
	}
	tree, err := a.snapshotTree(r)
	if err != nil {
		return err
	}
	refused := append(reasons(gate.CodePlanMode, kindProblems(kind, a.base.Apply)),
		reasons(gate.CodeSnapshot, bundle.CheckSnapshot(&zr.Reader, tree))...)
	if len(refused) > 0 {
		// Not the reviewed code, or not a kind of plan a review shows: terraform reads no
		// more of it.
		t.problems = append(t.problems, refused...)
		return nil
	}
	checked := a.req.Now()

	raw, err := r.TF.ShowPlan(ctx, t.opened.PlanPath)
	if err != nil {
		return err
	}
	keep := func(key string) bool {
		return slices.ContainsFunc(engines, func(e ruleEngine) bool { return e.pols.Engine.Reads(key) })
	}
	changes, doc, err := plan.ReadDocument(raw, plan.Options{Masker: r.Masker}, keep)
	if err != nil {
		return fmt.Errorf("read plan of %s: %w", t.p.Name, err)
	}
	d := &derived{summary: changes.Summary}
	for _, res := range changes.Resources {
		if res.Action == plan.ActionDelete || res.Action == plan.ActionReplace {
			d.destroyed = append(d.destroyed, res.Address)
		}
	}
	shown := a.req.Now()
	if len(engines) > 0 {
		m := changes.Masker()
		var results []policy.Result
		for _, e := range engines {
			res := e.pols.Engine.EvalValue(ctx, doc.Input(), policy.Project{Name: e.pols.ProjectName(t.p.Name, t.p.Dir, t.p.Workspace),
				Dir: t.p.Dir, Workspace: t.p.Workspace, ChangedFiles: stage.ProjectFiles(t.p, a.changed), Masker: m})
			results = append(results, res.Masked(m))
		}
		d.policy = mergeVerdicts(results)
	}
	t.derived = d
	t.problems = append(t.problems, reasons(gate.CodeManifest, disagreements(*t.bundle, d))...)
	done := a.req.Now()
	a.req.Log.Info("apply verified the plan file", "project", t.p.Name, "snapshot_and_kind", checked.Sub(start),
		"show", shown.Sub(checked), "policies", done.Sub(shown), "resources", len(changes.Resources))
	if a.replans() && len(t.problems) == 0 {
		if err := a.replan(ctx, r, t, changes); err != nil {
			return err
		}
		a.req.Log.Info("apply planned the merge again", "project", t.p.Name, "took", a.req.Now().Sub(done))
	}
	return nil
}

// snapshotTree is what a target's plan configuration is compared with: the merge commit's
// working tree and the modules init installed from it.
func (a *review) snapshotTree(r *stage.ProjectRun) (bundle.SnapshotTree, error) {
	tree := bundle.SnapshotTree{Repo: os.DirFS(a.req.Root), Root: a.req.Root, Dir: r.Project.Dir, Flavor: a.bin.Flavor}
	dataDir := filepath.Join(a.req.Root, filepath.FromSlash(r.Project.Dir), ".terraform")
	if dd, ok := r.TF.(interface{ DataDir() string }); ok && dd.DataDir() != dataDir {
		// TF_DATA_DIR: the modules init installed are read there.
		dataDir = dd.DataDir()
		tree.DataDir, tree.Data = dataDir, os.DirFS(dataDir)
	}
	data, err := os.ReadFile(filepath.Join(dataDir, "modules", "modules.json"))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return tree, nil // init installed no module: the root module alone
	case err != nil:
		return tree, err
	}
	tree.Installed, err = bundle.ReadModulesJSON(data)
	return tree, err
}

// kindProblems refuses a plan of a kind tfgate plan never makes, unless the base's
// apply.allow_modes allows it.
func kindProblems(k bundle.PlanKind, rules config.Apply) []string {
	var out []string
	allow := func(what, mode string) {
		out = append(out, fmt.Sprintf("its plan file is %s, which tfgate plan never makes: refusing it (apply.allow_modes: [%s] in %s on the default branch allows it)",
			what, mode, config.FileName))
	}
	switch k.Mode {
	case bundle.ModeNormal:
	case bundle.ModeDestroy:
		if !rules.AllowsMode(config.AllowDestroy) {
			allow("a destroy plan (-destroy)", config.AllowDestroy)
		}
	case bundle.ModeRefreshOnly:
		if !rules.AllowsMode(config.AllowRefreshOnly) {
			allow("a refresh-only plan (-refresh-only)", config.AllowRefreshOnly)
		}
	default:
		out = append(out, fmt.Sprintf("its plan file was made in a mode tfgate does not know (%s): refusing it", k.Mode))
	}
	if (len(k.Targets) > 0 || len(k.Excludes) > 0) && !rules.AllowsMode(config.AllowTargeted) {
		addrs := append(slices.Clone(k.Targets), k.Excludes...)
		allow("a targeted plan (-target or -exclude "+clipList(addrs)+")", config.AllowTargeted)
	}
	if k.Errored {
		out = append(out, "its plan file is of a plan that stopped on an error: terraform applies none; plan again")
	}
	return out
}

// mergeVerdicts is the verdict of several base commits' policies: denied when any denies.
func mergeVerdicts(results []policy.Result) *bundle.PolicyVerdict {
	var out *bundle.PolicyVerdict
	for i := range results {
		v := stage.PolicyVerdict(&results[i])
		if out == nil {
			out = v
			continue
		}
		out.Denied = out.Denied || v.Denied
		out.Warnings = max(out.Warnings, v.Warnings)
		for _, d := range v.Denies {
			if !slices.Contains(out.Denies, d) {
				out.Denies = append(out.Denies, d)
			}
		}
		if out.Error == "" {
			out.Error = v.Error
		}
	}
	return out
}

// disagreements are where the manifest says otherwise than the plan file: each one a
// reason to refuse, since the reviewers read the manifest's account (in the comment).
func disagreements(m bundle.Manifest, d *derived) []string {
	var out []string
	say := func(format string, args ...any) {
		out = append(out, fmt.Sprintf(format, args...)+": the bundle is not what tfgate plan wrote; plan again")
	}
	manifestDestroys := m.Summary.Destroy > 0 || m.Summary.Replace > 0
	switch {
	case !manifestDestroys && d.destroys():
		say("its manifest says no destroys, but the plan file destroys %s", clipList(d.destroyed))
	case manifestDestroys && !d.destroys():
		say("its manifest says it destroys %d and replaces %d, but the plan file destroys nothing", m.Summary.Destroy, m.Summary.Replace)
	}
	diff := summaryDiff(m.Summary, d.summary)
	if m.HasChanges != d.summary.HasChanges() {
		diff = append(diff, fmt.Sprintf("has changes: manifest %t, plan file %t", m.HasChanges, d.summary.HasChanges()))
	}
	if len(diff) > 0 {
		say("its manifest's summary is not the plan file's (%s)", strings.Join(diff, "; "))
	}
	mv, dv := m.Policy, d.policy
	mDenied, dDenied := mv != nil && mv.Denied, dv != nil && dv.Denied
	mErr, dErr := mv != nil && mv.Error != "", dv != nil && dv.Error != ""
	switch {
	case !mDenied && dDenied:
		say("its manifest says the policies pass, but the policies before the merge deny the plan file (%s)", clipList(dv.Denies))
	case mDenied && !dDenied:
		say("its manifest says the policies deny it, but the policies before the merge pass the plan file (if they changed since it was planned, plan again)")
	case mErr != dErr:
		say("its manifest and the policies before the merge disagree on whether the policies could be evaluated")
	}
	return out
}

// summaryDiff names the counts that differ: "destroy: manifest 0, plan file 1".
func summaryDiff(m, d plan.Summary) []string {
	var out []string
	for _, c := range []struct {
		name   string
		m, got int
	}{
		{"add", m.Add, d.Add}, {"change", m.Change, d.Change}, {"destroy", m.Destroy, d.Destroy}, {"replace", m.Replace, d.Replace},
		{"import", m.Import, d.Import}, {"move", m.Move, d.Move}, {"read", m.Read, d.Read}, {"forget", m.Forget, d.Forget},
		{"outputs", m.Outputs, d.Outputs}, {"actions", m.Actions, d.Actions}, {"drift", m.Drift, d.Drift},
	} {
		if c.m != c.got {
			out = append(out, fmt.Sprintf("%s: manifest %d, plan file %d", c.name, c.m, c.got))
		}
	}
	return out
}

// clipList names at most five items.
// reasons are texts of one code, as refusals.
func reasons(code string, texts []string) []gate.Reason {
	var out []gate.Reason
	for _, text := range texts {
		out = append(out, gate.Reason{Code: code, Text: text})
	}
	return out
}

func clipList(items []string) string {
	if len(items) > 5 {
		return strings.Join(items[:5], ", ") + fmt.Sprintf(" and %d more", len(items)-5)
	}
	return strings.Join(items, ", ")
}

// policyVerdict is the target's policy verdict: derived from its plan file, else (a bundle
// refused before that) its manifest's.
func (t target) policyVerdict() *bundle.PolicyVerdict {
	switch {
	case t.derived != nil:
		return t.derived.policy
	case t.bundle != nil:
		return t.bundle.Policy
	}
	return nil
}
