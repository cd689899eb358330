package cli

import (
	"github.com/spf13/cobra"
)

func newRootCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tfgate",
		Short: "Plan, review and apply Terraform from pull requests — safely",
		Long: `tfgate plans every Terraform project a change touches, checks each plan against
Rego policies read from the base commit, and reports the result: a coloured summary on a
terminal, markdown or JSON — and, in GitHub Actions, one sticky pull request comment, a
tfgate/plan commit status, the job summary, step outputs and annotations. Plan bundles
(--out) pin each plan to its commit and input files.

Text output is laid out for the terminal's width; piped or redirected, for 80 columns, the
same on every machine, with long values wrapped whole, never cut.`,
		Example: `  # Which projects does this branch change, and what would they do?
  tfgate projects --changed
  tfgate plan --install

  # A pull request's life in CI: plan and review, the gate, and the apply after the merge
  tfgate plan --out plans
  tfgate gate
  tfgate apply`,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			return a.setupLogging()
		},
	}
	f := cmd.PersistentFlags()
	f.StringVarP(&a.global.Chdir, "chdir", "C", "", "the repository's root `dir` (default: git top-level of the working directory)")
	f.StringVar(&a.global.Config, "config", "", "config `file` (default: .tfgate.yaml at the root; absent = autodetect)")
	f.StringVar(&a.global.LogLevel, "log-level", "warn", "log `level`: debug, info, warn, error")
	f.BoolVar(&a.global.NoColor, "no-color", false, "disable colours (NO_COLOR is honoured too)")

	cmd.AddCommand(
		newVersionCmd(a),
		newProjectsCmd(a),
		newPlanCmd(a),
		newPublishCmd(a),
		newGateCmd(a),
		newApplyCmd(a),
		newRecoverCmd(a),
		newNotifyStaleCmd(a),
		newDriftCmd(a),
		newRenderCmd(a),
		newPolicyCmd(a),
		newInitCmd(a),
		newDoctorCmd(a),
	)
	setUsage(cmd)
	return cmd
}
