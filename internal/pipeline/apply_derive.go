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

	"github.com/tfgate/tfgate/internal/astjson"
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
	digest  string // plan.Digest: what a reviewer reads of it
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
			r := &stage.ProjectRun{Opts: opts, Project: p, Dir: t.dir, Phase: phase, Detail: stage.DetailOf(a.req.Progress, p.Name),
				PlanFile: t.opened.PlanPath} // inspected: terraform reads it under the read guard
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
		PluginCacheDir: stage.PluginCacheDir(a.req.Config, a.req.Terraform), SharedSums: a.shared,
		RequireGuard: a.base.Apply.ReadGuard == config.ReadGuardRequired || a.Config.Apply.ReadGuard == config.ReadGuardRequired}
	if err := opts.Defaults(); err != nil {
		return nil, err
	}
	a.runOpts = opts
	return opts, nil
}

// loadRuleEngines loads the policies of every commit the rules come from (none when none
// has policies).
func (a *runFacts) loadRuleEngines(ctx context.Context) ([]ruleEngine, error) {
	if !a.policies {
		return nil, nil
	}
	var out []ruleEngine
	for _, rev := range a.ruleRevs {
		pols, err := stage.LoadPolicies(ctx, stage.PolicyOptions{Root: a.Root, Config: a.Config, ConfigFile: a.ConfigFile,
			From: stage.PoliciesFromBase, BaseRev: rev, Changed: a.changed})
		if err != nil {
			return nil, err
		}
		if pols.Engine != nil {
			out = append(out, ruleEngine{pols: pols.WithMoved(a.moved), rev: rev})
		}
	}
	return out, nil
}

// inspect is the stage that judges one target's plan file after init.
func (a *review) inspect(ctx context.Context, r *stage.ProjectRun, t *target, engines []ruleEngine) error {
	start := a.req.Now()
	facts, err := a.planFileFacts(r, t)
	if err != nil {
		return err
	}
	if refused := gate.AcceptPlanFile(facts, a.base.Apply); len(refused) > 0 {
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
	reads := astjson.NoPaths()
	for _, e := range engines {
		reads = astjson.Union(reads, e.pols.Engine.InputPaths())
	}
	changes, doc, err := plan.ReadDocument(raw, plan.Options{Masker: r.Masker}, reads)
	if err != nil {
		return fmt.Errorf("read plan of %s: %w", t.p.Name, err)
	}
	d := &derived{summary: changes.Summary}
	key := "" // keyed as plan keyed it: when it sealed the bundle
	if t.bundle.Encrypted {
		key = a.req.PlanKey
	}
	if d.digest, err = plan.Digest(raw, key); err != nil {
		return fmt.Errorf("read plan of %s: %w", t.p.Name, err)
	}
	for _, res := range changes.Resources {
		if res.Action == plan.ActionDelete || res.Action == plan.ActionReplace {
			d.destroyed = append(d.destroyed, res.Address)
		}
	}
	shown := a.req.Now()
	if len(engines) > 0 {
		if d.policy, err = a.judgeAgain(ctx, t, raw, doc, changes.Masker(), engines); err != nil {
			return err
		}
	}
	t.derived = d
	t.problems = append(t.problems, gate.CheckManifest(manifestAccount(*t.bundle), d.account())...)
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

// planFileFacts reads what gate.AcceptPlanFile judges of t's plan file before terraform
// reads it: that it is a zip archive, its kind and backend, where its configuration
// snapshot is not the merged code, and the merge's own backend. It stops at the first that
// cannot be read.
func (a *review) planFileFacts(r *stage.ProjectRun, t *target) (gate.PlanFileFacts, error) {
	var f gate.PlanFileFacts
	zr, err := zip.OpenReader(t.opened.PlanPath)
	if err != nil {
		f.NotZip = err.Error()
		return f, nil
	}
	defer zr.Close()
	tfplan, err := bundle.ReadTFPlan(&zr.Reader)
	if err != nil {
		f.NoKind = err.Error()
		return f, nil
	}
	f.Kind, f.Backend = gate.PlanKind(tfplan.Kind), gate.Backend(tfplan.Backend)
	tree, err := a.snapshotTree(r)
	if err != nil {
		return f, err
	}
	f.Snapshot = bundle.CheckSnapshot(&zr.Reader, tree)
	dataDir, _ := a.dataDir(r)
	merge, err := mergeBackend(dataDir)
	if err != nil {
		return f, err
	}
	merge.Workspace = t.p.Workspace
	f.MergeBackend = gate.Backend(merge)
	return f, nil
}

// dataDir is terraform's data directory for r's project; defaultDir reports whether it is
// the default one, .terraform in the project's directory (not TF_DATA_DIR).
func (a *review) dataDir(r *stage.ProjectRun) (dir string, defaultDir bool) {
	dir = filepath.Join(a.Root, filepath.FromSlash(r.Project.Dir), ".terraform")
	if dd, ok := r.TF.(interface{ DataDir() string }); ok && dd.DataDir() != dir {
		return dd.DataDir(), false
	}
	return dir, true
}

// snapshotTree is what a target's plan configuration is compared with: the merge commit's
// working tree and the modules init installed from it.
func (a *review) snapshotTree(r *stage.ProjectRun) (bundle.SnapshotTree, error) {
	tree := bundle.SnapshotTree{Repo: os.DirFS(a.Root), Root: a.Root, Dir: r.Project.Dir, Flavor: a.bin.Flavor}
	dataDir, defaultDir := a.dataDir(r)
	if !defaultDir {
		// TF_DATA_DIR: the modules init installed are read there.
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

// mergeBackend is the state backend terraform init set up for the merge in dataDir (its
// terraform.tfstate; none there: the local backend, as init records none for a
// configuration without a backend block).
func mergeBackend(dataDir string) (bundle.Backend, error) {
	data, err := os.ReadFile(filepath.Join(dataDir, "terraform.tfstate"))
	if errors.Is(err, fs.ErrNotExist) {
		data, err = []byte("{}"), nil
	}
	if err != nil {
		return bundle.Backend{}, err
	}
	return bundle.ReadBackendState(data)
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
		out.Approval = mergeApprovals(out.Approval, v.Approval)
	}
	return out
}

// manifestAccount is what the manifest m says the plan does and the policies said of it.
func manifestAccount(m bundle.Manifest) gate.PlanAccount {
	out := gate.PlanAccount{Summary: m.Summary, HasChanges: m.HasChanges, Digest: m.ChangesDigest}
	if v := m.Policy; v != nil {
		out.PolicyDenied, out.PolicyDenies, out.PolicyError = v.Denied, v.Denies, v.Error != ""
		out.Approval = gateApproval(v)
	}
	return out
}

// account is what the plan file does and what the policies before the merge said of it.
func (d *derived) account() gate.PlanAccount {
	out := gate.PlanAccount{Summary: d.summary, HasChanges: d.summary.HasChanges(), Destroyed: d.destroyed, Digest: d.digest}
	if v := d.policy; v != nil {
		out.PolicyDenied, out.PolicyDenies, out.PolicyError = v.Denied, v.Denies, v.Error != ""
		out.Approval = gateApproval(v)
	}
	return out
}

// policyVerdict is the project's policy verdict: derived from its plan file, else (a
// bundle refused before that) its manifest's.
func (c projectCase) policyVerdict() *bundle.PolicyVerdict {
	switch {
	case c.derived != nil:
		return c.derived.policy
	case c.bundle != nil:
		return c.bundle.Policy
	}
	return nil
}
