package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/git"
	"github.com/tfgate/tfgate/internal/setup"
	"github.com/tfgate/tfgate/internal/stage"
)

type initOptions struct {
	Force  bool
	Branch string
	Pin    string
}

func newInitCmd(a *app) *cobra.Command {
	var opts initOptions
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Write the GitHub Actions workflows and a commented .tfgate.yaml for this repository",
		Long: `init writes .github/workflows/plan.yml, gate.yml, apply.yml and drift.yml (tfgate's example
workflows, for the repository's default branch and the projects it finds) and a commented
.tfgate.yaml, then prints the settings to make on GitHub. It never overwrites a file without
--force, and writes nothing when one exists.

The workflows run this tfgate's own release, tfgate/tfgate@v1.4.2, which the action downloads
and checks against the release's checksums.txt; --pin sha pins the release's commit instead,
tfgate/tfgate@<sha> # v1.4.2. A development build (no release version) writes
tfgate/tfgate@v1, the newest v1.x.y release.`,
		Example: `  tfgate init
  # Pin the workflows to this release's commit
  tfgate init --pin sha
  # Replace the files an earlier init wrote
  tfgate init --force`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runInit(cmd, a, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Force, "force", false, "overwrite the files that exist")
	cmd.Flags().StringVar(&opts.Branch, "branch", "", "the default branch (default: origin/HEAD's, else main or master)")
	cmd.Flags().StringVar(&opts.Pin, "pin", setup.PinTag, "how the workflows pin tfgate's action: tag (this release's tag) or sha (its commit, the tag in a comment)")
	return cmd
}

func runInit(cmd *cobra.Command, a *app, opts initOptions) error {
	ctx := cmd.Context()
	build := currentBuild()
	action, err := setup.ActionFor(build.Version, build.Commit, opts.Pin)
	if err != nil {
		return err
	}
	root, err := a.root(ctx)
	if err != nil {
		return err
	}
	if !opts.Force {
		// Refused first: what exists matters more than what init would find.
		if err := setup.CheckFree(root, setup.Paths()); err != nil {
			return err
		}
	}
	cfg, err := a.loadConfig(ctx, root)
	if err != nil {
		var ce *config.Error
		if !opts.Force || !errors.As(err, &ce) {
			return fmt.Errorf("%w\n(init reads the projects with the existing configuration: fix it, or run `tfgate init --force` to replace it)", err)
		}
		a.warn(fmt.Sprintf("%v\n(the configuration is replaced: projects are autodetected)", err))
		cfg = config.Default()
	}
	sel, err := stage.Select(ctx, stage.SelectOptions{Root: root, Config: cfg, ConfigFile: a.configFile(), All: true})
	if err != nil {
		return err
	}
	if len(sel.Projects) == 0 {
		return fmt.Errorf("no Terraform projects in %s: tfgate init sets up a repository that holds Terraform root modules (*.tf files with resources, data sources or modules)", root)
	}
	branch, err := defaultBranch(ctx, root, opts.Branch)
	if err != nil {
		return err
	}
	var projects []setup.Project
	for _, p := range sel.Projects {
		projects = append(projects, setup.Project{Name: p.Name, Dir: p.Dir, Workspace: p.Workspace})
	}
	files, err := setup.Files(setup.Options{DefaultBranch: branch, Projects: projects, Action: action})
	if err != nil {
		return err
	}
	if err := setup.Write(root, files, opts.Force); err != nil {
		return err
	}
	if err := setup.WriteSummary(a.stdout, files, projects, branch, action); err != nil {
		return err
	}
	return setup.OfferGitignore(root, a.stdout)
}

// defaultBranch is the name of the branch pull requests merge into: flag when given, else
// origin/HEAD's, else main or master (git.Git.DefaultBase), without the remote's name.
func defaultBranch(ctx context.Context, root, flag string) (string, error) {
	if flag != "" {
		return strings.TrimPrefix(flag, "refs/heads/"), nil
	}
	base, err := git.Git{Dir: root}.DefaultBase(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return "", err
		}
		return "", fmt.Errorf("cannot tell the default branch of %s (no origin/HEAD, origin/main, origin/master, main or master): name it with --branch", root)
	}
	return strings.TrimPrefix(base, "origin/"), nil
}
