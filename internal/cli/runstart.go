package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/tfgate/tfgate/internal/pipeline"
	"github.com/tfgate/tfgate/internal/stage"
)

// runStart is what plan and apply check and open before they run: their flags, the plan
// key, the environment (the repository and its configuration), and GitHub when they
// publish to it.
type runStart struct {
	ctx context.Context
	env stage.Env
	gh  *pipeline.GitHubRun // nil: nothing is published
	key string              // TFGATE_PLAN_KEY, "" when unset
}

// startRun checks --format, the metrics flags and --publish, reads the plan key, opens the
// repository and, when publishing, GitHub (outDir is plan's --out: bundles to upload), whose
// API calls and phase timings the metrics then count.
func (a *app) startRun(cmd *cobra.Command, col *collector, format, publish, outDir string) (runStart, error) {
	if err := oneOf("--format", format, reportFormats...); err != nil {
		return runStart{}, err
	}
	if err := col.check(); err != nil {
		return runStart{}, err
	}
	if err := oneOf("--publish", publish, publishModes...); err != nil {
		return runStart{}, err
	}
	key, err := a.planKey()
	if err != nil {
		return runStart{}, err
	}
	ctx := cmd.Context()
	env, err := a.env(ctx)
	if err != nil {
		return runStart{}, err
	}
	gh, err := a.githubRun(env.Config, publish, outDir)
	if err != nil {
		return runStart{}, err
	}
	if gh != nil {
		col.useGitHub(gh.API)
		gh.Timings = col.phases
	}
	return runStart{ctx: ctx, env: env, gh: gh, key: key}, nil
}
