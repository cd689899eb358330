package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/tfgate/tfgate/internal/pipeline"
)

type recoverOptions struct {
	Projects []string
	Reason   string
}

func newRecoverCmd(a *app) *cobra.Command {
	var opts recoverOptions
	cmd := &cobra.Command{
		Use:   "recover PROJECT...",
		Short: "Start the reviewed way back for a merged change that was not applied",
		Example: `  # On a branch from the default branch; then open a pull request with the file it writes
  tfgate recover envs/dev/app --reason "issue 123"`,
		ValidArgsFunction: completeProjects(a),
		Long: `When apply refuses or fails after a merge (a stale plan, an approval missing at apply time,
a failed apply, an expired artifact), the default branch holds a change the infrastructure
does not, and tfgate opens a tracking issue for the project. The way back is a pull request
like any other: on a branch from the default branch, tfgate recover PROJECT writes
` + pipeline.RecoverFile + ` (comments only) into the project's directory; commit it and open a
pull request. tfgate plans the project — the default branch's code against the
infrastructure as it is now — reviewers approve that plan under the base rules, and its
merge applies exactly it and closes the tracking issue. Nothing is applied unreviewed.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Projects = args
			return runRecover(cmd, a, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Reason, "reason", "", "a line written into the file (e.g. the tracking issue's number)")
	return cmd
}

func runRecover(cmd *cobra.Command, a *app, opts recoverOptions) error {
	ctx := cmd.Context()
	env, err := a.env(ctx)
	if err != nil {
		return err
	}
	files, err := pipeline.RunRecover(ctx, pipeline.RecoverRequest{Env: env, Names: opts.Projects, Reason: opts.Reason})
	for _, f := range files {
		fmt.Fprintf(a.stdout, "wrote %s\n", f)
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(a.stdout, "Next: commit it on a branch from the default branch and open a pull request; its reviewed plan is applied on merge and closes the tracking issue.")
	return nil
}
