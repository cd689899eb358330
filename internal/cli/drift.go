package cli

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/tfgate/tfgate/internal/ci"
	"github.com/tfgate/tfgate/internal/drift"
	"github.com/tfgate/tfgate/internal/pipeline"
	"github.com/tfgate/tfgate/internal/render"
	"github.com/tfgate/tfgate/internal/report"
	"github.com/tfgate/tfgate/internal/stage"
)

// webhookEnv names the drift webhook's URL when --webhook is not given.
const webhookEnv = "TFGATE_DRIFT_WEBHOOK"

type driftOptions struct {
	Projects    []string
	Format      string
	Report      string
	Webhook     string
	Parallel    int
	LockTimeout time.Duration
	Install     bool
	Patch       string
	FoldBackPR  bool
	Metrics     metricsOptions
}

func newDriftCmd(a *app) *cobra.Command {
	var opts driftOptions
	cmd := &cobra.Command{
		Use:   "drift [PROJECT...]",
		Short: "Check every project (or the named ones) for drift and report it; never fixes it",
		Long: `Check each project on the current commit: terraform init, workspace select, and one normal
plan (refreshed in memory; no state is written, nothing is applied, no plan is kept). A project
is drifted (changed outside Terraform), pending (code in Git not applied), check failed (a
check block or condition does not hold; Terraform 1.5+), in sync, or an error.
Projects with drift: false in the config are left out unless named. Each drifted attribute
whose value is a literal in the project's own files (or its local modules) gets the edit that
would accept the drift (main.tf:12  content = "v1" → "v2"); --suggest-patch FILE writes them
all as a unified diff. Other attributes are named with where they are set.

Exit codes: 0 all in sync, 2 drift, pending code or a failed check, 1 errors.`,
		Example: `  tfgate drift
  tfgate drift envs/prod/network --suggest-patch drift.patch
  # Nightly in CI: an issue per drifted project
  tfgate drift --report github`,
		ValidArgsFunction: completeProjects(a),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Projects = args
			col := newCollector(opts.Metrics, report.KindDrift)
			return col.finish(a, runDrift(cmd, a, opts, col))
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Format, "format", "text", "output format: text, markdown or json")
	f.StringVar(&opts.Report, "report", "auto", "report to GitHub (an issue per project, job summary): auto (in GitHub Actions with a token), github or none")
	f.StringVar(&opts.Webhook, "webhook", "", "POST the run's JSON summary to this `url` (default $"+webhookEnv+"); a secret, never printed")
	f.IntVar(&opts.Parallel, "parallel", 0, "projects checked at once (default: number of CPUs)")
	f.DurationVar(&opts.LockTimeout, "lock-timeout", stage.DefaultLockTimeout, "how long terraform waits for a state lock another run holds")
	f.BoolVar(&opts.Install, "install", false, "download a matching terraform when none is installed")
	f.StringVar(&opts.Patch, "suggest-patch", "", "write the code edits that would accept the drift (literal attributes) to `file` as a unified diff, for review and git apply")
	addFoldBackFlag(cmd, &opts.FoldBackPR) // drift_foldpr.go
	addMetricsFlags(cmd, &opts.Metrics)
	completeValues(cmd, "format", reportFormats)
	completeValues(cmd, "report", publishModes)
	return cmd
}

func runDrift(cmd *cobra.Command, a *app, opts driftOptions, col *collector) error {
	if err := oneOf("--format", opts.Format, reportFormats...); err != nil {
		return err
	}
	if err := col.check(); err != nil {
		return err
	}
	if err := oneOf("--report", opts.Report, publishModes...); err != nil {
		return err
	}
	webhook := opts.Webhook
	if webhook == "" {
		webhook = a.getenv(webhookEnv)
	}
	for _, s := range webhookSecrets(webhook) {
		a.addSecret(s)
	}
	ctx := cmd.Context()
	env, err := a.env(ctx)
	if err != nil {
		return err
	}
	cfg := env.Config
	actions := ci.GitHubFromEnv(a.getenv)
	api, err := githubAPI(actions, "--report", opts.Report, cfg.GitHub.Identity)
	fold, err := newFoldBack(opts.FoldBackPR, api, err, actions, env) // githubAPI's error first (drift_foldpr.go)
	if err != nil {
		return err
	}
	col.useGitHub(api)
	progress := render.NewProgress(a.stderr, isTerminal(a.rawErr), a.color(a.rawErr))
	env.Terraform, env.TerraformEnv = a.terraformOptions(opts.Install), a.terraformEnv()
	delete(env.TerraformEnv, webhookEnv) // terraform and its providers have no use for it
	env.Parallel, env.LockTimeout, env.Progress = opts.Parallel, opts.LockTimeout, col.watch(progress)
	run, err := pipeline.RunDrift(ctx, pipeline.DriftRequest{Env: env, Names: opts.Projects, Suggest: fold.wrap(drift.Suggest), PatchFile: opts.Patch})
	progress.Close()
	col.run = run
	if err != nil && run.Projects == nil {
		return err // nothing ran
	}
	run = fold.open(ctx, run) // before the issues, which link the pull requests
	// Issues first, so the report below links them; reported even when interrupted.
	run, perr := pipeline.PublishDrift(ctx, pipeline.DriftPublish{API: api, Env: actions, Identity: cfg.GitHub.Identity,
		Labels: cfg.Drift.Labels, Version: version(), Webhook: webhook, Timings: col.phases}, run)
	col.run = run
	perr = fold.link(ctx, run, perr)
	if werr := writeRun(a, opts.Format, run, actions.Actions); werr != nil && err == nil {
		err = werr
	}
	if err == nil {
		err = perr
	} else if perr != nil {
		a.warn(perr.Error())
	}
	if err != nil {
		return err
	}
	return driftOutcome(run)
}

// driftOutcome is the exit code of a finished drift run: errors first, then drift,
// pending code or a failed check (the same code: something a human must act on; the
// message and the reports tell them apart).
func driftOutcome(r report.Run) error {
	if failed := r.Unfinished(); len(failed) > 0 {
		names := make([]string, len(failed))
		for i, p := range failed {
			names[i] = p.Name
		}
		return fmt.Errorf("%d of %d projects could not be checked: %s", len(failed), len(r.Projects), strings.Join(names, ", "))
	}
	if s := render.DriftSummary(r); s != "" {
		what := "drift found"
		if r.Count(report.StatusDrifted)+r.Count(report.StatusPending) == 0 {
			what = "checks failed"
		}
		return withCode(ExitChanges, fmt.Errorf("%s: %s", what, s))
	}
	return nil
}

// webhookSecrets are the spellings of a webhook URL to mask: the whole URL, and the parts
// that carry its credential (Slack's is the path, others put a token in the query or the
// user info), which may appear without the rest — a path cleaned, a host resolved.
func webhookSecrets(hook string) []string {
	if hook == "" {
		return nil
	}
	out := []string{hook}
	u, err := url.Parse(hook)
	if err != nil {
		return out
	}
	if p := strings.Trim(u.Path, "/"); p != "" {
		out = append(out, p)
	}
	if u.RawQuery != "" {
		out = append(out, u.RawQuery)
	}
	if pw, ok := u.User.Password(); ok {
		out = append(out, pw)
	}
	if u.User != nil && u.User.Username() != "" {
		out = append(out, u.User.Username())
	}
	return out
}
