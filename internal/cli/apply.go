package cli

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/tfgate/tfgate/internal/bundle"
	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/pipeline"
	"github.com/tfgate/tfgate/internal/render"
	"github.com/tfgate/tfgate/internal/report"
)

type applyOptions struct {
	Projects    []string
	PR          int
	Plans       string
	DryRun      bool
	Publish     string
	Format      string
	Parallel    int
	AuditLog    string
	LockTimeout time.Duration
	Install     bool
	CatchUp     int
	Metrics     metricsOptions
	// UnsavedState and StatePushWait: a state terraform applied but could not save.
	UnsavedState  string
	StatePushWait time.Duration
}

func newApplyCmd(a *app) *cobra.Command {
	var opts applyOptions
	cmd := &cobra.Command{
		Use:   "apply [PROJECT...]",
		Short: "Apply exactly the reviewed plans of the merged pull request, if the approval gate holds",
		Long: `Run on the push of a merge to the default branch (or with --pr N from workflow_dispatch).
tfgate finds the merged pull request of the commit checked out, fetches the plan bundles
reviewed on its head commit (--plans), verifies each against the merge commit (plan file
sha256, the project's input files, terraform version), evaluates the approval gate with the
rules of the commit before the merge (approvals on the reviewed commit, policy owners,
observe mode, freeze), and applies the saved plans that pass in depends_on order. Projects
the merge changed without a bundle are refused. Nothing is ever re-planned.

On a push, the merges before it that no run applied (a cancelled or failed run: none of
the commits since the last tfgate/apply status of success or failure that tfgate set) are
applied first, in merge order, each with its own reviewed plans and audit (--catch-up N
commits back at most; beyond, the run refuses and says what to do). A plan an earlier run
already applied is recognised in the state and reported as "already applied".

Exit codes: 0 applied (or nothing to apply), 4 the gate refused a project, 1 errors.`,
		Example: `  # On the push of a merge to the default branch
  tfgate apply
  # What would be applied, without applying it
  tfgate apply --dry-run
  # From workflow_dispatch: the merge of pull request 42, with its bundles in plans/
  tfgate apply --pr 42 --plans plans`,
		ValidArgsFunction: completeProjects(a),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Projects = args
			col := newCollector(opts.Metrics, report.KindApply)
			return col.finish(a, runApply(cmd, a, opts, col))
		},
	}
	f := cmd.Flags()
	f.IntVar(&opts.PR, "pr", 0, "apply this merged pull request (default: the one merged as the commit checked out)")
	f.StringVar(&opts.Plans, "plans", "", "where the reviewed bundles are: the `dir` tfgate plan --out wrote, or github (the plan run's artifact; the default in GitHub Actions)")
	f.BoolVar(&opts.DryRun, "dry-run", false, "verify and evaluate the gate, apply nothing, publish nothing")
	f.StringVar(&opts.Publish, "publish", "auto", "GitHub access (pull request, reviews; the apply comment and status): auto (in GitHub Actions with a token), github or none")
	f.StringVar(&opts.Format, "format", "text", "output format: text, markdown or json")
	f.IntVar(&opts.Parallel, "parallel", 0, "independent projects applied at once (default: number of CPUs)")
	f.StringVar(&opts.AuditLog, "audit-log", "", "append one JSON line per project (approvals, plan sha256, outcome, duration) to `file`")
	f.DurationVar(&opts.LockTimeout, "lock-timeout", 5*time.Minute, "how long terraform waits for a state lock another run holds")
	f.BoolVar(&opts.Install, "install", false, "download a matching terraform when none is installed")
	f.IntVar(&opts.CatchUp, "catch-up", pipeline.DefaultCatchUp, "on a push, look back this many commits of the default branch for the last merge tfgate applied and apply the merges after it first, in order (0: only this one)")
	f.StringVar(&opts.UnsavedState, "unsaved-state-dir", "", "the `dir` to keep a state terraform applied but could not save in (errored.tfstate), encrypted with TFGATE_PLAN_KEY when set (default: $RUNNER_TEMP/tfgate-unsaved-state, else in the temporary directory)")
	f.DurationVar(&opts.StatePushWait, "state-push-wait", pipeline.DefaultStatePushWait, "how long to keep trying to push a state terraform could not save before keeping the file")
	addMetricsFlags(cmd, &opts.Metrics)
	completeValues(cmd, "format", reportFormats)
	completeValues(cmd, "publish", publishModes)
	return cmd
}

func runApply(cmd *cobra.Command, a *app, opts applyOptions, col *collector) error {
	st, err := a.startRun(cmd, col, opts.Format, opts.Publish, "")
	if err != nil {
		return err
	}
	ctx, env, key := st.ctx, st.env, st.key
	gh := a.withArtifact(st.gh)
	store, err := a.planStore(gh, opts.Plans)
	if err != nil {
		return err
	}
	progress := render.NewProgress(a.stderr, isTerminal(a.rawErr), a.color(a.rawErr))
	env.Terraform, env.TerraformEnv = a.terraformOptions(opts.Install), a.terraformEnv()
	env.Parallel, env.LockTimeout, env.Progress = opts.Parallel, opts.LockTimeout, col.watch(progress)
	var earlier []report.Run // the caught-up merges' runs, for the last line
	run, err := pipeline.RunApply(ctx, pipeline.ApplyRequest{
		Env: env, Names: opts.Projects, PR: opts.PR,
		Plans: store, PlanKey: key, DryRun: opts.DryRun, Freeze: a.getenv("TFGATE_FREEZE"),
		GitHub: gh, AuditLog: opts.AuditLog, CatchUp: opts.CatchUp,
		UnsavedStateDir: unsavedStateDir(a, opts.UnsavedState), StatePushWait: opts.StatePushWait,
		CaughtUp: func(r report.Run) { // an earlier merge's run: its report first
			earlier = append(earlier, r)
			if werr := writeRun(a, opts.Format, r, gh != nil && gh.Env.Actions); werr != nil {
				a.warn("the report of the earlier merge " + r.Commit + ": " + werr.Error())
			}
		},
	})
	progress.Close()
	col.run = run
	if run.Projects != nil || err == nil {
		if werr := writeRun(a, opts.Format, run, gh != nil && gh.Env.Actions); werr != nil && err == nil {
			err = werr
		}
	}
	return applyOutcome(append(earlier, run), err)
}

// applyOutcome: errors first (a run that could not finish, a project that did not), then
// refusals (exit 4). The last line counts every refused and unfinished project of every
// run (the caught-up merges' first, then the pushed commit's).
func applyOutcome(runs []report.Run, err error) error {
	line, failed := render.ApplyOutcome(runs)
	refused := errors.Is(err, pipeline.ErrGateRefused)
	switch {
	case err != nil && !refused && !errors.Is(err, pipeline.ErrUnfinished):
		if line != "" {
			return fmt.Errorf("%w; %s", err, line)
		}
		return err
	case failed:
		return errors.New(line)
	case line != "":
		return withCode(ExitGateRefused, errors.New(line))
	case refused:
		return withCode(ExitGateRefused, err)
	}
	return err
}

// planKey is TFGATE_PLAN_KEY, masked from now on; a short one is refused.
func (a *app) planKey() (string, error) {
	key := a.getenv("TFGATE_PLAN_KEY")
	if key == "" {
		return "", nil
	}
	a.addSecret(key)
	if len(key) < bundle.MinKeyLength {
		return "", errors.New("TFGATE_PLAN_KEY is shorter than 16 characters: the plan bundles it encrypts hold secrets; use a long random passphrase (e.g. openssl rand -base64 32) kept as a repository secret")
	}
	return key, nil
}

// withArtifact fills in the artifact name apply and gate look for (TFGATE_ARTIFACT_NAME
// overrides the default tfgate-plan-<reviewed head>, chosen later).
func (a *app) withArtifact(gh *pipeline.GitHubRun) *pipeline.GitHubRun {
	if gh != nil {
		gh.ArtifactName = a.getenv("TFGATE_ARTIFACT_NAME")
	}
	return gh
}

// planStore is where --plans says the bundles are: a directory, or the workflow's
// artifacts ("github", the default in GitHub Actions).
func (a *app) planStore(gh *pipeline.GitHubRun, plans string) (bundle.Store, error) {
	if plans == "" && gh != nil && gh.Env.Actions {
		plans = "github"
	}
	switch plans {
	case "":
		return nil, errors.New("--plans is required outside GitHub Actions: the directory `tfgate plan --out DIR` wrote, or github")
	case "github":
		if gh == nil || gh.API == nil {
			return nil, errors.New("--plans github reads the workflow's artifacts: it needs GITHUB_TOKEN and GITHUB_REPOSITORY")
		}
		api, ok := gh.API.(bundle.ArtifactAPI)
		if !ok {
			return nil, errors.New("--plans github: this GitHub client cannot download artifacts")
		}
		return bundle.GitHubStore(api, github.Repo{Owner: gh.Event.Owner, Name: gh.Event.Repo}), nil
	}
	return bundle.DirStore(plans), nil
}

// unsavedStateDir is --unsaved-state-dir, by default under RUNNER_TEMP (which the action
// uploads as the artifact tfgate-unsaved-state), else the temporary directory.
func unsavedStateDir(a *app, flag string) string {
	if flag != "" {
		return flag
	}
	if t := a.getenv("RUNNER_TEMP"); t != "" {
		return filepath.Join(t, "tfgate-unsaved-state")
	}
	return ""
}
