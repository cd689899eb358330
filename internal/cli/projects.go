package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/tfgate/tfgate/internal/english"
	"github.com/tfgate/tfgate/internal/git"
	"github.com/tfgate/tfgate/internal/render"
	"github.com/tfgate/tfgate/internal/stage"
)

type projectsOptions struct {
	Changed bool
	Base    string
	Format  string
}

func newProjectsCmd(a *app) *cobra.Command {
	var opts projectsOptions
	cmd := &cobra.Command{
		Use:   "projects",
		Short: "List the Terraform projects of the repository (or the changed ones)",
		Example: `  tfgate projects
  tfgate projects --changed --base origin/main
  tfgate projects --changed --format matrix > matrix.json
  tfgate projects --changed --format mermaid`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runProjects(cmd, a, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Changed, "changed", false, "only projects touched since the base ref")
	cmd.Flags().StringVar(&opts.Base, "base", "", "base `ref` for --changed (default: the remote default branch)")
	cmd.Flags().StringVar(&opts.Format, "format", "table", "output format: table, json, matrix, or with --changed the graph of why each project is selected: mermaid or dot")
	completeValues(cmd, "format", projectsFormats)
	return cmd
}

func runProjects(cmd *cobra.Command, a *app, opts projectsOptions) error {
	if err := oneOf("--format", opts.Format, projectsFormats...); err != nil {
		return err
	}
	if (opts.Format == "mermaid" || opts.Format == "dot") && !opts.Changed {
		return fmt.Errorf("--format %s draws why change detection selects each project: add --changed", opts.Format)
	}
	ctx := cmd.Context()
	root, cfg, err := a.repository(ctx)
	if err != nil {
		return err
	}
	sel, err := stage.Select(ctx, stage.SelectOptions{Root: root, Config: cfg, ConfigFile: a.configFile(), Changed: opts.Changed, Base: opts.Base})
	if err != nil {
		return err
	}
	errOpts := render.TextOptions{Color: a.color(a.rawErr), Width: a.width(a.rawErr)}
	if opts.Changed {
		fmt.Fprintf(a.stderr, "Changed since %s (merge base %s): %s\n", sel.Base, git.ShortSHA(sel.MergeBase), english.Plural(len(sel.Projects), "project", "projects"))
	}
	// Notes (removed code, a former project now a module) go to stderr: stdout stays
	// machine-readable for json and matrix.
	if err := render.Notes(a.stderr, sel.Notes, errOpts); err != nil {
		return err
	}
	switch opts.Format {
	case "json":
		return render.ProjectsJSON(a.stdout, sel.Projects, sel.Why)
	case "matrix":
		return render.ProjectsMatrix(a.stdout, sel.Projects)
	case "mermaid", "dot":
		return projectsGraph(a, opts, sel)
	}
	return render.ProjectsTable(a.stdout, sel.Projects, sel.Why, render.ProjectsOptions{
		TextOptions: render.TextOptions{Color: a.color(a.rawOut), Width: a.width(a.rawOut)}, Changed: opts.Changed, Base: sel.Base})
}

// projectNames are the names of the repository's projects, as tfgate projects lists them.
func (a *app) projectNames(ctx context.Context) ([]string, error) {
	root, cfg, err := a.repository(ctx)
	if err != nil {
		return nil, err
	}
	sel, err := stage.Select(ctx, stage.SelectOptions{Root: root, Config: cfg, ConfigFile: a.configFile()})
	if err != nil {
		return nil, err
	}
	names := make([]string, len(sel.All))
	for i, p := range sel.All {
		names[i] = p.Name
	}
	return names, nil
}

// projectsGraph prints why change detection selected each project, as the plan comment's
// graph draws it (without verdicts: nothing was planned).
func projectsGraph(a *app, opts projectsOptions, sel stage.Selection) error {
	if opts.Format == "dot" {
		return render.ScopeDOT(a.stdout, sel.Scope(), nil)
	}
	return render.ScopeMermaid(a.stdout, sel.Scope(), nil)
}
