package terraform

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/terraform-exec/tfexec"

	"github.com/tfgate/tfgate/internal/guard"
)

// Runner declares only the terraform commands tfgate uses. A Runner runs one
// command at a time; use one Runner per project directory.
type Runner interface {
	// Init runs `init -input=false -no-color -upgrade=false`.
	Init(ctx context.Context) error
	// SelectWorkspace selects the workspace, creating it when missing. Call it
	// after Init: terraform lists workspaces through the backend.
	SelectWorkspace(ctx context.Context, name string) error
	// Plan runs `plan -json -detailed-exitcode` and reports whether it has changes.
	Plan(ctx context.Context, opts PlanOptions) (hasChanges bool, err error)
	// ShowPlan returns the exact stdout bytes of `show -json <planFile>`.
	ShowPlan(ctx context.Context, planFile string) (raw []byte, err error)
	// Apply applies the saved plan file, and nothing else.
	Apply(ctx context.Context, planFile string, opts ApplyOptions) error
	// StatePull returns the exact stdout bytes of `state pull` (statepull.go).
	StatePull(ctx context.Context) ([]byte, error)
	// ShowState returns the exact stdout bytes of `show -json` of the current state.
	ShowState(ctx context.Context) ([]byte, error)
	// Recorder: apply's record in the backend, and saving an unsaved state (record.go).
	Recorder
}

// PlanOptions are the plan flags tfgate sets. Paths are relative to the
// project directory (or absolute).
type PlanOptions struct {
	Out         string
	VarFiles    []string
	Destroy     bool
	RefreshOnly bool
	// LockTimeout is how long terraform waits for a state lock another run holds; 0 =
	// fail at once.
	LockTimeout time.Duration
	// Progress, when set, is called with the counts so far after each message of
	// terraform's that moves them (see Progress), from the goroutine reading terraform's
	// output: it must be quick, and it is called thousands of times on a large plan.
	Progress func(Progress)
}

// RunnerOptions configure a Runner.
type RunnerOptions struct {
	// Env is the full environment for terraform; the process environment is
	// never used. The caller builds it (include TF_IN_AUTOMATION=1, TF_INPUT=0).
	// TF_LOG* are cleared and TF_WORKSPACE is dropped, as tfexec does, so
	// debug logs cannot corrupt output and workspaces go through
	// SelectWorkspace. CHECKPOINT_DISABLE defaults to 1. Values are never logged.
	Env map[string]string
	// Log receives terraform's stdout and stderr of every command except the
	// JSON of ShowPlan, which holds sensitive values in clear text; of plan and apply
	// (run with -json), each message's text, diagnostics as the text UI prints them
	// (var files' lines hidden). nil discards.
	Log io.Writer
	// Name is the directory as shown in errors (e.g. "envs/prod/app"); default dir.
	Name string
	// GracePeriod is how long terraform may take to exit after SIGINT before
	// it is killed; 0 means DefaultGracePeriod.
	GracePeriod time.Duration
	// InitWait, when set, is told when Init starts waiting for another project's init
	// (true) and when its own init starts, after such a wait or at once (false):
	// progress shows the real phase.
	InitWait func(waiting bool)
	// NoNewWorkspace makes SelectWorkspace refuse a workspace that does not exist instead
	// of creating it: creating one writes state, which a read-only run (drift) never does.
	NoNewWorkspace bool
	// PluginCache is the shared provider cache directory (OpenPluginCache), which Init
	// uses through a view of its own so that inits run in parallel and terraform never
	// writes the cache (plugincache.go). "" = none: terraform's own plugin cache
	// settings, if any, apply as they are, and inits are serialised.
	PluginCache string
	// MaxProcs, when positive, is terraform's GOMAXPROCS (unless Env sets one), and so of
	// what it starts (providers, local-exec commands): the share of the CPUs of each of the
	// terraform processes a run has going at once. Each
	// terraform process otherwise sizes its Go runtime for the whole machine, and several
	// of them on a few cores spend a tenth of their time contending (measured: 40 small
	// projects at --parallel 2 on 2 cores, 2.7 s → 2.4 s).
	MaxProcs int
	// GCPercent, when positive, is terraform's GOGC (unless Env sets GOGC or GOMEMLIMIT
	// to something: empty is Go's default), and so of what it starts. A plan or show is
	// one short process that builds a large heap once: collecting less often cuts its CPU
	// (see stage.TerraformGCPercent).
	GCPercent int
	// DataDir, when set, is terraform's data directory (TF_DATA_DIR), whatever Env says: an
	// absolute path, which must exist. The data directory records the state backend's
	// settings, the installed modules and the selected workspace, and terraform trusts it:
	// one that comes from the repository (a committed .terraform/) can point the state at
	// another backend, a module at other code. tfgate gives every project's run a new one
	// outside the work tree (pipeline). "" = terraform's own: Env's TF_DATA_DIR, else
	// .terraform in dir.
	DataDir string
	// Guard, when set, runs terraform (and so everything it starts) under the read guard:
	// it can reach nothing of Guard.Deny but Guard.Allow (package guard). NewRunner fails
	// when the guard cannot be set up here; the caller decides whether to run without.
	Guard *ReadGuard
	// TempDir, when set, is terraform's TMPDIR: with Guard, a directory terraform may use
	// (a new entry beside the way down to a denied directory cannot be made).
	TempDir string
}

// initSem serialises the inits that could collide, across every Runner in the process.
// Without PluginCache terraform uses the user's own plugin cache, if they have one, which
// terraform documents as not safe for concurrent use: two inits writing the same provider
// can leave a truncated binary that every later run trips on. With it the cache is safe
// (see initCached), but init also sets up the state backend, and backends race there: two
// projects initialising tofu's pg backend in one database at once collide creating its
// tables ("duplicate key value violates unique constraint"). So only the inits of projects
// on the local backend (sharedBackend) run at the same time, and those with the plugin
// cache only: 40 small projects at --parallel 2 plan in 0.53× a sequential loop's time
// instead of 0.57×. A channel rather than a sync.Mutex so that a cancelled run stops
// waiting.
var initSem = make(chan struct{}, 1)

type runner struct {
	tf     *tfexec.Terraform
	bin    Binary
	exe    string // what runs terraform: bin.Path, or tfgate's own binary guarding it
	dir    string
	name   string
	env    map[string]string // as given, for the commands tfgate execs itself
	log    io.Writer
	stderr *tailBuffer
	grace  time.Duration
	mu     sync.Mutex // one command at a time: stderr is per command

	initWait       func(waiting bool)
	noNewWorkspace bool
	pluginCache    string
	inProcess      inProcessGuard // guard_start.go
}

// NewRunner returns a Runner for the terraform configuration in dir.
func NewRunner(dir string, bin Binary, opts RunnerOptions) (Runner, error) {
	name := opts.Name
	if name == "" {
		name = dir
	}
	if bin.Flavor == "" {
		bin.Flavor = flavorOf(bin.Path)
	}
	exe, guardEnv := bin.Path, []string(nil)
	if opts.Guard != nil {
		var err error
		if exe, guardEnv, err = guard.Wrap(*opts.Guard, bin.Path); err != nil {
			return nil, fmt.Errorf("%s in %s: %w", bin.Flavor, name, err)
		}
	}
	tf, err := tfexec.NewTerraform(dir, exe)
	if err != nil {
		return nil, fmt.Errorf("%s in %s: %w", bin.Flavor, name, err)
	}
	grace := opts.GracePeriod
	if grace <= 0 {
		grace = DefaultGracePeriod
	}
	if err := tf.SetWaitDelay(grace); err != nil {
		return nil, fmt.Errorf("%s in %s: %w", bin.Flavor, name, err)
	}

	// tfexec refuses TF_VAR_*, TF_CLI_ARGS* and friends in SetEnv, pushing
	// callers to its own options; but TF_VAR_ secrets from CI must reach
	// terraform through the environment, never argv. SetEnv keeps the map it
	// is given, so validate an empty map and fill it afterwards. The runner
	// tests assert that TF_VAR_ values arrive, so a tfexec upgrade that
	// copies the map will fail loudly rather than silently drop variables.
	env := make(map[string]string, len(opts.Env)+1)
	if err := tf.SetEnv(env); err != nil {
		return nil, fmt.Errorf("%s in %s: %w", bin.Flavor, name, err)
	}
	if err := fillEnv(env, opts, guardEnv); err != nil {
		return nil, fmt.Errorf("%s in %s: %w", bin.Flavor, name, err)
	}

	log := io.Discard
	if opts.Log != nil {
		log = &syncWriter{w: opts.Log}
	}
	r := &runner{
		tf: tf, bin: bin, exe: exe, dir: dir, name: name, env: env,
		log: log, stderr: newTailBuffer(stderrTailBytes), grace: grace, initWait: opts.InitWait, noNewWorkspace: opts.NoNewWorkspace,
		pluginCache: opts.PluginCache, inProcess: newInProcessGuard(opts.Guard, guardEnv),
	}
	tf.SetStdout(log)
	tf.SetStderr(io.MultiWriter(log, r.stderr))
	return r, nil
}

func (r *runner) Init(ctx context.Context) error {
	if r.pluginCache == "" || sharedBackend(r.dir, r.dataDir()) {
		release, err := r.initTurn(ctx)
		if err != nil {
			return err
		}
		defer release()
	} else if r.initWait != nil {
		r.initWait(false)
	}
	if r.pluginCache != "" {
		return r.initCached(ctx)
	}
	return r.init(ctx, nil)
}

// initTurn waits until no other collision-prone init runs (initSem), telling initWait.
func (r *runner) initTurn(ctx context.Context) (release func(), err error) {
	select {
	case initSem <- struct{}{}:
	default:
		if r.initWait != nil {
			r.initWait(true)
		}
		select {
		case initSem <- struct{}{}:
		case <-ctx.Done():
			return nil, &CommandError{Command: r.bin.Flavor + " init", Dir: r.name,
				Err: fmt.Errorf("waiting for another init to finish"), Ctx: ctx.Err()}
		}
	}
	if r.initWait != nil {
		r.initWait(false)
	}
	return func() { <-initSem }, nil
}

// sharedBackend reports whether the configuration in dir may use a state backend other
// than the local one, which init sets up where other projects' states live too: any of
// its files mentioning "backend" or "cloud" (a terraform block's backend or cloud block),
// a backend recorded in its data directory (init migrates from it when the block is
// gone), or a directory that cannot be read, counts. The local backend's init touches
// nothing outside dir.
func sharedBackend(dir, dataDir string) bool {
	if _, err := os.Lstat(filepath.Join(dataDir, "terraform.tfstate")); !errors.Is(err, fs.ErrNotExist) {
		return true
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return true
	}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".tf") && !strings.HasSuffix(name, ".tf.json") && !strings.HasSuffix(name, ".tofu") && !strings.HasSuffix(name, ".tofu.json") {
			continue
		}
		src, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || bytes.Contains(src, []byte("backend")) || bytes.Contains(src, []byte("cloud")) {
			return true
		}
	}
	return false
}

// initCached is Init with the shared plugin cache: terraform's cache is the project's view
// of it, and what terraform installed joins the cache afterwards.
func (r *runner) initCached(ctx context.Context) error {
	view := filepath.Join(r.dataDir(), viewName)
	if err := preparePluginView(view, r.pluginCache, readLocks(r.dir)); err != nil {
		return r.cacheError(err)
	}
	if err := r.init(ctx, map[string]string{"TF_PLUGIN_CACHE_DIR": view}); err != nil {
		return err
	}
	// The lock file as init left it: it vouches for what terraform installed.
	if err := promotePackages(view, r.pluginCache, readLocks(r.dir)); err != nil {
		return r.cacheError(err)
	}
	return nil
}

func (r *runner) cacheError(err error) error {
	return fmt.Errorf("%s init in %s: plugin cache %s: %w (terraform.plugin_cache: false in the config turns it off)", r.bin.Flavor, r.name, r.pluginCache, err)
}

// dataDir is terraform's data directory for the project: TF_DATA_DIR, else .terraform.
func (r *runner) dataDir() string {
	d := r.env["TF_DATA_DIR"]
	if d == "" {
		d = ".terraform"
	}
	if filepath.IsAbs(d) {
		return d
	}
	return filepath.Join(r.dir, d)
}

// init runs terraform init, with env's variables on top of the runner's.
func (r *runner) init(ctx context.Context, env map[string]string) error {
	// init runs without tfexec: tfexec's Init probes `terraform version` first (to pick
	// flags for pre-0.15 terraform, which tfgate does not support), one extra terraform
	// process per project — a fifth of the run time of a small project.
	return r.run(ctx, "init", func() error {
		cmd := r.direct(ctx, r.execEnvWith(env),
			"init", "-no-color", "-input=false", "-backend=true", "-get=true", "-upgrade=false")
		cmd.Stdout = r.log
		cmd.Stderr = io.MultiWriter(r.log, r.stderr)
		return r.runDirect(cmd)
	})
}

func (r *runner) Plan(ctx context.Context, opts PlanOptions) (bool, error) {
	if opts.Destroy && opts.RefreshOnly {
		return false, fmt.Errorf("%s plan in %s: destroy and refresh-only cannot be combined", r.bin.Flavor, r.name)
	}
	// plan runs without tfexec too: tfexec's runTerraformCmd returns at once, without
	// waiting for terraform, when the context ends right after the process started — an
	// interrupted plan must always wait for terraform to release its state lock.
	//
	// -json: the machine-readable UI streams per-resource events (progress) and skips the
	// text rendering of every change, a large part of a large plan's time; tfgate renders
	// the plan from `show -json` anyway. Its diagnostics become the text terraform would
	// have printed (uiStream), so errors read as before.
	args := []string{"plan", "-json", "-no-color", "-input=false", "-detailed-exitcode", "-lock=true", "-refresh=true"}
	if opts.Destroy {
		args = append(args, "-destroy")
	}
	if opts.RefreshOnly {
		args = append(args, "-refresh-only")
	}
	if opts.LockTimeout > 0 {
		args = append(args, lockTimeoutFlag(opts.LockTimeout))
	}
	if opts.Out != "" {
		args = append(args, "-out="+opts.Out)
	}
	for _, f := range opts.VarFiles {
		args = append(args, "-var-file="+f)
	}
	var changes bool
	err := r.run(ctx, "plan", func() error {
		cmd := r.direct(ctx, r.execEnv(), args...)
		ui := newUIStream(r.log, r.stderr, opts.Progress)
		cmd.Stdout = ui
		cmd.Stderr = io.MultiWriter(r.log, r.stderr)
		err := r.runDirect(cmd)
		ui.close()
		var exit *exec.ExitError
		if errors.As(err, &exit) && exit.ExitCode() == 2 && ctx.Err() == nil {
			changes, err = true, nil // -detailed-exitcode: 2 means "succeeded with changes"
		}
		return err
	})
	return changes, err
}

// execEnv is the environment for commands tfgate runs without tfexec, with
// the same overrides tfexec applies to its own.
func (r *runner) execEnv() []string { return r.execEnvWith(nil) }

// execEnvWith is execEnv with extra's variables on top.
func (r *runner) execEnvWith(extra map[string]string) []string {
	env := maps.Clone(r.env)
	maps.Copy(env, extra)
	env["TF_IN_AUTOMATION"] = "1"
	for _, k := range []string{"TF_LOG", "TF_LOG_CORE", "TF_LOG_PATH", "TF_LOG_PROVIDER"} {
		env[k] = ""
	}
	delete(env, "TF_WORKSPACE")
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}
