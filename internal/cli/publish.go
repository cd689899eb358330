package cli

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/tfgate/tfgate/internal/pipeline"
)

type publishOptions struct {
	Dirs             []string
	Matrix           string
	Expect           []string
	Out              string
	Format           string
	Publish          string
	DetailedExitcode bool
}

func newPublishCmd(a *app) *cobra.Command {
	var opts publishOptions
	cmd := &cobra.Command{
		Use:   "publish RESULT_DIR...",
		Short: "Merge the results of matrix plan jobs into one review and publish it",
		Long: `Merge what matrix jobs planned — each ran tfgate plan --changed PROJECT --out DIR
--publish none, and DIR holds its tfgate-result.json — into one plan run, in project order, and
publish it as one tfgate plan of every project would have: the sticky comment, the tfgate/plan
status, the job summary, the step outputs and the annotations, byte for byte. Each RESULT_DIR is
one job's DIR (a downloaded artifact) or a directory holding several. A project of --matrix or
--expect without a result is reported failed, never left out. --out gathers the bundles into one
directory, as one plan --out writes them, for gate and apply. Runs no terraform.

Exit codes as for plan: 1 when a project failed or a result is missing or unreadable, 3 when a
policy denied a plan, 2 with --detailed-exitcode when a plan has changes.`,
		Example: `  # After matrix jobs that each ran tfgate plan --changed PROJECT --out results/PROJECT
  tfgate publish --matrix matrix.json --out plans results/*`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dirs = args
			return runPublish(cmd, a, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Matrix, "matrix", "", "the projects expected: a `file` holding the output of tfgate projects --changed --format matrix")
	f.StringSliceVar(&opts.Expect, "expect", nil, "a project expected (name or directory; repeat or separate with commas)")
	f.StringVar(&opts.Out, "out", "", "copy every bundle into `dir`, as one tfgate plan --out would have written them")
	f.StringVar(&opts.Format, "format", "text", "output format: text, markdown or json")
	f.StringVar(&opts.Publish, "publish", "auto", "publish to GitHub (sticky comment, status, job summary, outputs, annotations): auto (in GitHub Actions with a token), github or none")
	f.BoolVar(&opts.DetailedExitcode, "detailed-exitcode", false, "exit 2 when any project has changes")
	completeValues(cmd, "format", reportFormats)
	completeValues(cmd, "publish", publishModes)
	return cmd
}

func runPublish(cmd *cobra.Command, a *app, opts publishOptions) error {
	if err := oneOf("--format", opts.Format, reportFormats...); err != nil {
		return err
	}
	if err := oneOf("--publish", opts.Publish, publishModes...); err != nil {
		return err
	}
	var expect []pipeline.Expected
	if opts.Matrix != "" {
		var err error
		if expect, err = pipeline.ReadMatrix(opts.Matrix); err != nil {
			return err
		}
	}
	ctx := cmd.Context()
	env, err := a.env(ctx)
	if err != nil {
		return err
	}
	gh, err := a.githubRun(env.Config, opts.Publish, opts.Out)
	if err != nil {
		return err
	}
	run, err := pipeline.RunPublish(ctx, pipeline.PublishRequest{
		Env: env, Dirs: opts.Dirs, Expect: expect, ExpectNames: opts.Expect, Out: opts.Out, GitHub: gh,
	})
	if run.Projects != nil || err == nil {
		if werr := writeRun(a, opts.Format, run, gh != nil); werr != nil {
			err = errors.Join(err, werr)
		}
	}
	if err != nil { // what could be merged was reported above
		return err
	}
	return planOutcome(run, opts.DetailedExitcode)
}
