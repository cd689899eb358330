package stage

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tfgate/tfgate/internal/bundle"
	"github.com/tfgate/tfgate/internal/cost"
	"github.com/tfgate/tfgate/internal/plan"
	"github.com/tfgate/tfgate/internal/policy"
	"github.com/tfgate/tfgate/internal/project"
	"github.com/tfgate/tfgate/internal/report"
	"github.com/tfgate/tfgate/internal/secret"
	"github.com/tfgate/tfgate/internal/terraform"
)

// RunnerFactory makes the terraform runner of one project directory. Tests inject fakes;
// the default runs the resolved binary.
type RunnerFactory func(dir string, opts terraform.RunnerOptions) (terraform.Runner, error)

// PlanOptions configure the planning of a list of projects.
type PlanOptions struct {
	Env
	Projects  []project.Project
	Binary    terraform.Binary
	NewRunner RunnerFactory // nil: terraform.NewRunner with Binary
	// PluginCacheDir is the provider cache the projects share (the user's own instead, when
	// TerraformEnv gives terraform one: see terraform.OpenPluginCache); "" = none.
	PluginCacheDir string
	OutDir         string // write a bundle per project here; "" = plans are discarded
	Commit         string // the commit recorded in bundles: HEAD, or the pull request's head
	// PlannedCommit is HEAD when it is GitHub's test merge of Commit ("" otherwise).
	PlannedCommit string
	Dirty         bool // the working tree differs from Commit
	PR            int  // the pull request planned (recorded in bundles); 0 = none
	Fork          bool // the pull request comes from a fork: its bundles are never applicable
	ReadOnly      bool // never create a workspace (drift: nothing writes state)
	// RequireGuard fails every project instead of running terraform without the read
	// guard (guard.go): apply.read_guard: required.
	RequireGuard bool
	PlanKey      string   // TFGATE_PLAN_KEY: bundles are encrypted with it; "" = clear text
	Policies     Policies // Policies.Engine nil: no policies configured
	// Infracost (tfgate plan --cost) prices the projects instead of Policies.Prices.
	Infracost    *cost.Infracost
	ChangedFiles []string // root-relative files changed (for data.tfgate.project)
	Author       string   // the pull request's author (data.tfgate.author); "" = none
	// SharedSums are the sha256 sums of the files outside every project (the function
	// SharedSums): every bundle's input hash covers them, so that apply finds a plan stale
	// when one changed.
	SharedSums map[string]string
	// Unapplied says, per project name, the merges planned on that changed it and that no
	// run had applied (recorded in its bundle); UnappliedUnknown why that could not be told.
	Unapplied        map[string][]bundle.UnappliedMerge
	UnappliedUnknown string
	// Dirs names each project's bundle directory (BundleDirs of the whole selection, when a
	// run plans it in parts: pipeline/plan_reuse.go); nil = BundleDirs(Projects).
	Dirs []string

	Procs int // terraform's GOMAXPROCS (TerraformProcs), set by the run
	// keepDataDirs (tests): the projects' data directories go here and stay (datadir.go).
	KeepDataDirs string
	committed    *committedDataDirs // what git tracks under .terraform (committed.go)
	guard        *runGuard          // the read guard (guard.go)
	unscoped     bool               // (benchmarks) terraform runs in the checkout, unguarded, as before the tree
}

// Plan plans every project with bounded parallelism and returns the run (its projects
// only: the caller adds base, policy source and notes). One project failing does not stop
// the others: its result says why. The error is only for problems that stop the whole run,
// and for an interrupted run, whose results are still returned.
func Plan(ctx context.Context, opts PlanOptions) (report.Run, error) {
	run := report.Run{Kind: report.KindPlan}
	if err := opts.Defaults(); err != nil {
		return run, err
	}
	work := opts.OutDir
	if work == "" {
		tmp, err := os.MkdirTemp("", "tfgate-plan-")
		if err != nil {
			return run, err
		}
		defer os.RemoveAll(tmp)
		work = tmp
	} else if err := os.MkdirAll(work, 0o700); err != nil {
		return run, Optionf("{Out} %s: %w", work, err)
	}
	dirs := opts.Dirs
	if dirs == nil {
		dirs = BundleDirs(opts.Projects)
	}
	byName := make(map[string]string, len(opts.Projects))
	for i, p := range opts.Projects {
		byName[p.Name+"\x00"+p.Workspace] = filepath.Join(work, dirs[i])
	}
	opts.Procs = TerraformProcs(opts.Parallel, DirCount(opts.Projects))
	run.Projects = ForEach(ctx, opts.Projects, PoolOptions{Limit: opts.Parallel, Progress: opts.Progress, Now: opts.Now},
		func(ctx context.Context, p project.Project, phase func(string)) report.Project {
			return RunStages(ctx, &ProjectRun{Opts: &opts, Project: p, Dir: byName[p.Name+"\x00"+p.Workspace], Phase: phase,
				Detail: DetailOf(opts.Progress, p.Name)}, PlanStages)
		})
	if note := opts.GuardNote(); note != "" {
		run.Notes = append(run.Notes, note)
	}
	if err := ctx.Err(); err != nil {
		return run, fmt.Errorf("plan interrupted: %w", err)
	}
	return run, nil
}

// DefaultLockTimeout is how long plan, drift and apply wait for a state lock by default.
const DefaultLockTimeout = 5 * time.Minute

// Defaults fills in the environment's defaults (Env.Defaults), the lock timeout (an
// apply, another project creating its workspace in the same pg database may hold the
// lock) and the terraform runner, and opens the plugin cache.
func (opts *PlanOptions) Defaults() error {
	opts.Env.Defaults()
	if opts.LockTimeout <= 0 {
		opts.LockTimeout = DefaultLockTimeout
	}
	opts.committed = &committedDataDirs{root: opts.Root}
	opts.guard = &runGuard{}
	if opts.NewRunner == nil {
		bin := opts.Binary
		opts.NewRunner = func(dir string, ro terraform.RunnerOptions) (terraform.Runner, error) {
			return terraform.NewRunner(dir, bin, ro)
		}
	}
	if opts.PluginCacheDir != "" {
		dir, err := terraform.OpenPluginCache(opts.PluginCacheDir, opts.TerraformEnv)
		if err != nil {
			return err
		}
		opts.PluginCacheDir = dir
	}
	return nil
}

// ProjectRun is the state one project's stages share.
type ProjectRun struct {
	Opts    *PlanOptions
	Project project.Project
	Dir     string // this project's bundle (or scratch) directory
	Phase   func(string)
	Detail  func(string)   // how far the phase is (terraform's counts)
	Masker  *secret.Masker // opts.Masker plus the values of the project's sensitive variables

	dataDir   string            // terraform's data directory (datadir.go)
	reuse     *reusedDataDir    // the data directory is a kept one (datadir_reuse.go)
	scope     *scope            // the tree terraform runs in (scope.go), from InitProject on
	unscope   func() error      // carries the working files back and removes the tree
	inputs    map[string]string // bundle inputs, hashed before init
	inputHash string
	TF        terraform.Runner
	PlanFile  string
	doc       *plan.Document // the plan decoded for the policies, until they judge it
	digest    string         // plan.Digest of the plan, for its bundle
	cost      *cost.Cost     // the plan's cost as policies read it (Result.Cost is masked)
	Result    report.Project
	// lockTimeout (apply) is how long terraform waits for a state lock.
	LockTimeout time.Duration
}

// Stage is one step of a project's job. phase names it in progress ("" for a stage too
// quick to show, or one that reports its own phase).
type Stage struct {
	Phase string
	Run   func(ctx context.Context, r *ProjectRun) error
}

// PlanStages: what `tfgate plan` does to each project. Apply and drift reuse the first
// stages and add their own.
var PlanStages = []Stage{
	{"", CheckProblems},
	{"", RefuseTerraformFiles},
	{"", hashInputs},
	{"", InitProject}, // reports "waiting" and "init" itself
	{"workspace", SelectWorkspace},
	{"plan", PlanProject},
	{"show", ShowPlan},
	{"", judgePlan}, // "policy" when policies are configured
	{"", writeBundle},
}

// RunStages runs the stages in order; the first error fails the project (and leaves no
// half-bundle behind).
func RunStages(ctx context.Context, r *ProjectRun, stages []Stage) report.Project {
	// Every known value of the project's sensitive variables: terraform can quote them in
	// its own error messages, and a plan can show them unmarked (nonsensitive()).
	sensitive := project.FindSensitive(ctx, r.Opts.Root, r.Project, r.Opts.TerraformEnv)
	r.Masker = r.Opts.Masker.With(sensitive.Values...)
	release, err := r.newDataDir()
	if err != nil {
		return report.Project{Status: report.StatusFailed, Error: err.Error()}
	}
	defer release()
	err = r.runStages(ctx, stages)
	if r.unscope != nil {
		err = errors.Join(err, r.unscope())
		r.scope, r.unscope = nil, nil
	}
	if err != nil {
		if r.Opts.OutDir != "" {
			// A failed project leaves no half-bundle: terraform may have written an
			// errored plan (secrets in clear) that must not look like something to apply.
			os.RemoveAll(r.Dir)
		}
		// Values too short to mask, or unknown to tfgate (-var), are not quoted either.
		return report.Project{Status: report.StatusFailed, Error: sensitive.Redact(r.Masker.String(err.Error()))}
	}
	r.Result.Status = report.StatusPlanned
	return r.Result
}

// runStages runs the stages in order until one fails.
func (r *ProjectRun) runStages(ctx context.Context, stages []Stage) error {
	for _, s := range stages {
		if s.Phase != "" {
			r.Phase(s.Phase)
		}
		if err := s.Run(ctx, r); err != nil {
			return r.scope.explain(err, r.Opts.Root, r.Project)
		}
	}
	return nil
}

// WorkDir is where terraform runs for r: the project's directory in its tree (scope.go)
// once InitProject made it, the checkout's before.
func (r *ProjectRun) WorkDir() string {
	if r.scope != nil {
		return r.scope.dir(r.Project)
	}
	return filepath.Join(r.Opts.Root, filepath.FromSlash(r.Project.Dir))
}

// CheckProblems fails a project whose files could not be read (a bad module source, an
// HCL syntax error): terraform would fail on them too.
func CheckProblems(_ context.Context, r *ProjectRun) error {
	if len(r.Project.Problems) > 0 {
		return errors.New(strings.Join(r.Project.Problems, "\n"))
	}
	return os.MkdirAll(r.Dir, 0o700)
}

// hashInputs records the bundle's input files before init: init may create or update
// .terraform.lock.hcl, and apply (from a fresh checkout) must see the same hash. They are
// hashed as copied into the project's tree: what terraform reads is what was hashed.
func hashInputs(ctx context.Context, r *ProjectRun) error {
	if r.Opts.OutDir == "" {
		return nil
	}
	if err := r.ensureScope(ctx); err != nil {
		return err
	}
	var err error
	if r.scope == nil { // unscoped
		return errors.New("bundles need the tree terraform runs in")
	}
	if r.inputs, _, err = bundle.HashInputs(ctx, r.scope.root, r.scope.inputs); err != nil {
		return err
	}
	for f, sum := range r.Opts.SharedSums {
		r.inputs[f] = sum
	}
	r.inputHash = bundle.InputHash(r.inputs)
	return nil
}

// InitProject is the stage that runs terraform init in the project's directory (reporting
// "queued" while it waits behind another project's init) and keeps the runner for the
// stages after it.
func InitProject(ctx context.Context, r *ProjectRun) error {
	if err := r.ensureScope(ctx); err != nil {
		return err
	}
	spec, err := r.guardSpec(ctx)
	if err != nil {
		return err
	}
	tf, err := r.Opts.NewRunner(r.WorkDir(), terraform.RunnerOptions{
		Guard: spec, TempDir: r.TempDir(),
		Env: r.Opts.TerraformEnv, Name: r.Project.Dir, NoNewWorkspace: r.Opts.ReadOnly, PluginCache: r.Opts.PluginCacheDir,
		MaxProcs: r.Opts.Procs, GCPercent: TerraformGCPercent, DataDir: r.dataDir,
		InitWait: func(waiting bool) {
			if waiting {
				r.Phase("queued") // behind another project's init
			} else {
				r.Phase("init")
			}
		},
	})
	if err != nil {
		return err
	}
	r.TF = tf
	if r.reuse != nil {
		return r.initKept(ctx)
	}
	return r.init(ctx)
}

// init runs terraform init.
func (r *ProjectRun) init(ctx context.Context) error {
	if err := r.TF.Init(ctx); err != nil {
		if ce, ok := unreachableBackend(err); ok {
			return errors.Join(fmt.Errorf("the state backend cannot be reached (%s could not connect to it): check that it is up and that this runner may reach it; nothing was planned or applied", ce.Command), err)
		}
		return err
	}
	return nil
}

// unreachableBackend reports whether init failed because the state backend did not answer,
// and the failed command.
func unreachableBackend(err error) (*terraform.CommandError, bool) {
	var ce *terraform.CommandError
	if !errors.As(err, &ce) {
		return nil, false
	}
	for _, s := range []string{"connect: connection refused", "no such host", "i/o timeout", "network is unreachable"} {
		if strings.Contains(ce.Stderr, s) {
			return ce, true
		}
	}
	return nil, false
}

// SelectWorkspace is the stage that selects the project's workspace.
func SelectWorkspace(ctx context.Context, r *ProjectRun) error {
	return r.TF.SelectWorkspace(ctx, r.Project.Workspace)
}

// PlanProject is the stage that runs terraform plan into the project's plan file, readable
// by its owner only.
func PlanProject(ctx context.Context, r *ProjectRun) error {
	r.PlanFile = filepath.Join(r.Dir, bundle.PlanFile)
	progress := NewDetailer(r.Opts.Now, r.Detail, terraform.PlanDetail)
	if _, err := r.TF.Plan(ctx, terraform.PlanOptions{Out: r.PlanFile, VarFiles: r.Project.VarFiles, LockTimeout: r.Opts.LockTimeout,
		Progress: progress.Update}); err != nil {
		return err
	}
	// The plan file holds secrets in clear text: only its owner may read it.
	return os.Chmod(r.PlanFile, 0o600)
}

// ShowPlan is the stage that reads the plan file back (terraform show -json) into the
// project's masked changes.
func ShowPlan(ctx context.Context, r *ProjectRun) error {
	raw, err := r.TF.ShowPlan(ctx, r.PlanFile)
	if err != nil {
		return err
	}
	reads := plan.ReadsNothing() // no policies: nothing to keep
	if e := r.Opts.Policies.Engine; e != nil {
		reads = e.InputPaths()
	}
	changes, doc, err := plan.ReadDocument(raw, plan.Options{Masker: r.Masker}, reads)
	if err != nil {
		return fmt.Errorf("read plan of %s: %w", r.Project.Name, err)
	}
	r.doc = doc
	r.Result.Changes = changes
	if r.Opts.OutDir != "" { // the bundle records what a reviewer reads of it (keyed when sealed with the key)
		if r.digest, err = plan.Digest(raw, r.Opts.PlanKey); err != nil {
			return fmt.Errorf("read plan of %s: %w", r.Project.Name, err)
		}
	}
	return r.priceCost(raw)
}

// judgePlan evaluates the policies on the plan and masks what they say with the plan's
// secrets: policies read the raw plan.
func judgePlan(ctx context.Context, r *ProjectRun) error {
	engine := r.Opts.Policies.Engine
	if engine == nil {
		return nil
	}
	r.Phase("policy")
	m := r.Result.Changes.Masker()
	doc := r.doc
	r.doc = nil // a large plan's value is not kept for the rest of the run
	res := engine.EvalValue(ctx, cost.Input(doc.Input(), r.cost), policy.Project{Name: r.Opts.Policies.ProjectName(r.Project.Name, r.Project.Dir, r.Project.Workspace),
		Dir: r.Project.Dir, Workspace: r.Project.Workspace, ChangedFiles: ProjectFiles(r.Project, r.Opts.ChangedFiles), Masker: m,
		Author: r.Opts.Author})
	res = res.Masked(m)
	r.Result.Policy = &res
	return nil
}
