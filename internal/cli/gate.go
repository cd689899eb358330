package cli

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/tfgate/tfgate/internal/pipeline"
)

type gateOptions struct {
	PR      int
	Plans   string
	Publish string
	Format  string
}

func newGateCmd(a *app) *cobra.Command {
	var opts gateOptions
	cmd := &cobra.Command{
		Use:   "gate",
		Short: "Evaluate the approval gate of a pull request and set the tfgate/gate status",
		Long: `Evaluate the approval gate for the pull request's current head, as apply will on merge:
approvals on the planned commit by others with write access (each reviewer's latest review
counts), no outstanding change requests, policy denies approved by a policy owner, no observe
mode, no freeze, not a fork, a bundle for every changed project. The rules come from the
pull request's base commit. Sets the commit status tfgate/gate (success, pending or failure,
naming what is missing) and a line in the sticky plan comment. Runs no terraform.

Exit codes: 0 the gate allows applying, 4 it does not (yet), 1 errors.`,
		Example: `  # In the workflow a review runs (the pull request is the event's)
  tfgate gate
  # From a terminal: this pull request's gate, against its plan run's bundles
  tfgate gate --pr 42 --plans github --publish none`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runGate(cmd, a, opts)
		},
	}
	f := cmd.Flags()
	f.IntVar(&opts.PR, "pr", 0, "the pull request (default: the event's)")
	f.StringVar(&opts.Plans, "plans", "", "where the plan run's bundles are: a `dir`, or github (its artifact; the default in GitHub Actions)")
	f.StringVar(&opts.Publish, "publish", "auto", "publish the verdict (status tfgate/gate, the sticky comment's gate line): auto (in GitHub Actions with a token), github or none")
	f.StringVar(&opts.Format, "format", "text", "output format: text, markdown or json")
	completeValues(cmd, "format", reportFormats)
	completeValues(cmd, "publish", publishModes)
	return cmd
}

func runGate(cmd *cobra.Command, a *app, opts gateOptions) error {
	if err := oneOf("--format", opts.Format, reportFormats...); err != nil {
		return err
	}
	if err := oneOf("--publish", opts.Publish, publishModes...); err != nil {
		return err
	}
	ctx := cmd.Context()
	env, err := a.env(ctx)
	if err != nil {
		return err
	}
	// The gate reads GitHub whatever --publish says; --publish only decides the writes.
	publish := opts.Publish
	readMode := publish
	if readMode == "none" {
		readMode = "auto"
	}
	gh, err := a.githubRun(env.Config, readMode, "")
	if err != nil {
		return err
	}
	gh = a.withArtifact(gh)
	store, err := a.planStore(gh, opts.Plans)
	if err != nil {
		return err
	}
	run, err := pipeline.RunGate(ctx, pipeline.GateRequest{
		Env: env, PR: opts.PR, Plans: store,
		Freeze: a.getenv("TFGATE_FREEZE"), GitHub: gh, Publish: gh != nil && gh.API != nil && publish != "none",
	})
	if run.Projects != nil || err == nil || errors.Is(err, pipeline.ErrGateRefused) {
		if werr := writeRun(a, opts.Format, run, gh != nil && gh.Env.Actions); werr != nil && err == nil {
			err = werr
		}
	}
	if errors.Is(err, pipeline.ErrGateRefused) {
		return withCode(ExitGateRefused, nil)
	}
	return err
}
