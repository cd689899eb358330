package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tfgate/tfgate/internal/ci"
	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/english"
	"github.com/tfgate/tfgate/internal/pipeline"
	"github.com/tfgate/tfgate/internal/setup"
)

type initOptions struct {
	Force  bool
	Branch string
}

func newInitCmd(a *app) *cobra.Command {
	var opts initOptions
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Write the GitHub Actions workflows and a commented .tfgate.yaml for this repository",
		Long: `init writes .github/workflows/plan.yml, gate.yml, apply.yml and drift.yml (tfgate's example
workflows, for the repository's default branch and the projects it finds) and a commented
.tfgate.yaml, then prints the settings to make on GitHub. It never overwrites a file without
--force, and writes nothing when one exists.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runInit(cmd, a, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Force, "force", false, "overwrite the files that exist")
	cmd.Flags().StringVar(&opts.Branch, "branch", "", "the default branch (default: origin/HEAD's, else main or master)")
	return cmd
}

func runInit(cmd *cobra.Command, a *app, opts initOptions) error {
	ctx := cmd.Context()
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
	sel, err := pipeline.Select(ctx, pipeline.SelectOptions{Root: root, Config: cfg, ConfigFile: a.configFile(), All: true})
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
	var names []string
	for _, p := range sel.Projects {
		projects = append(projects, setup.Project{Name: p.Name, Dir: p.Dir, Workspace: p.Workspace})
		names = append(names, p.Name)
	}
	files, err := setup.Files(setup.Options{DefaultBranch: branch, Projects: projects})
	if err != nil {
		return err
	}
	if err := setup.Write(root, files, opts.Force); err != nil {
		return err
	}
	w := a.stdout
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = f.Path
	}
	fmt.Fprintf(w, "Wrote %s\nfor %s (%s) and the default branch %s.\n\n", strings.Join(paths, ", "),
		english.Plural(len(projects), "project", "projects"), strings.Join(names, ", "), branch)
	fmt.Fprintf(w, `Settings to make on GitHub (tfgate doctor checks them):
  1. The Actions secret TFGATE_PLAN_KEY, which encrypts the plan bundles (16 random characters
     or more), for example:
       openssl rand -base64 32 | gh secret set TFGATE_PLAN_KEY
  2. tfgate/gate as a required status check of %[1]s: Settings → Rules → Rulesets → New branch
     ruleset, target the default branch, "Require status checks to pass", add tfgate/gate
     (or, with classic branch protection, Settings → Branches → %[1]s). Without it the gate
     only reports: a pull request can merge, and apply, without the approvals.
  3. Optionally, a GitHub environment for apply (required reviewers, secrets of its own):
     create it under Settings → Environments and uncomment "environment:" in
     .github/workflows/apply.yml.
Then commit the files and open a pull request: the plan workflow runs on it.
`, branch)
	return nil
}

// defaultBranch is the name of the branch pull requests merge into: flag when given, else
// origin/HEAD's, else main or master (ci.Git.DefaultBase), without the remote's name.
func defaultBranch(ctx context.Context, root, flag string) (string, error) {
	if flag != "" {
		return strings.TrimPrefix(flag, "refs/heads/"), nil
	}
	base, err := ci.Git{Dir: root}.DefaultBase(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return "", err
		}
		return "", fmt.Errorf("cannot tell the default branch of %s (no origin/HEAD, origin/main, origin/master, main or master): name it with --branch", root)
	}
	return strings.TrimPrefix(base, "origin/"), nil
}
