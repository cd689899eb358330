package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/tfgate/tfgate/internal/pipeline"
	"github.com/tfgate/tfgate/internal/project"
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
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runProjects(cmd, a, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Changed, "changed", false, "only projects touched since the base ref")
	cmd.Flags().StringVar(&opts.Base, "base", "", "base ref for --changed (default: the remote default branch)")
	cmd.Flags().StringVar(&opts.Format, "format", "table", "output format: table, json or matrix")
	return cmd
}

func runProjects(cmd *cobra.Command, a *app, opts projectsOptions) error {
	if err := oneOf("--format", opts.Format, "table", "json", "matrix"); err != nil {
		return err
	}
	ctx := cmd.Context()
	root, cfg, err := a.repository(ctx)
	if err != nil {
		return err
	}
	sel, err := pipeline.Select(ctx, pipeline.SelectOptions{Root: root, Config: cfg, Changed: opts.Changed, Base: opts.Base})
	if err != nil {
		return err
	}
	switch opts.Format {
	case "json":
		return writeProjectsJSON(a.stdout, sel.Projects, sel.Why)
	case "matrix":
		return writeProjectsMatrix(a.stdout, sel.Projects)
	}
	if opts.Changed {
		fmt.Fprintf(a.stderr, "Changed since %s (merge base %s): %s\n", sel.Base, short(sel.MergeBase), plural(len(sel.Projects), "project"))
	}
	return writeProjectsTable(a.stdout, sel.Projects, sel.Why)
}

// projectJSON is the stable JSON shape of a project (`tfgate projects --format json`).
type projectJSON struct {
	Name      string   `json:"name"`
	Dir       string   `json:"dir"`
	Workspace string   `json:"workspace"`
	Mode      string   `json:"mode"`
	DependsOn []string `json:"depends_on"`
	Modules   []string `json:"modules"`
	Problems  []string `json:"problems"`             // found reading its files (file:line: …); planning it fails
	ChangedBy string   `json:"changed_by,omitempty"` // with --changed: a changed file that touches it
}

func toProjectJSON(ps []project.Project, why []string) []projectJSON {
	out := make([]projectJSON, 0, len(ps))
	for i, p := range ps {
		j := projectJSON{Name: p.Name, Dir: p.Dir, Workspace: p.Workspace, Mode: string(p.Mode),
			DependsOn: nonNil(p.DependsOn), Modules: nonNil(p.Modules), Problems: nonNil(p.Problems)}
		if i < len(why) {
			j.ChangedBy = why[i]
		}
		out = append(out, j)
	}
	return out
}

func writeProjectsJSON(w io.Writer, ps []project.Project, why []string) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(toProjectJSON(ps, why))
}

// writeProjectsMatrix prints a GitHub Actions matrix: {"include":[{"project":…,"dir":…},…]}.
func writeProjectsMatrix(w io.Writer, ps []project.Project) error {
	type entry struct {
		Project   string `json:"project"`
		Dir       string `json:"dir"`
		Workspace string `json:"workspace"`
	}
	m := struct {
		Include []entry `json:"include"`
	}{Include: []entry{}}
	for _, p := range ps {
		m.Include = append(m.Include, entry{p.Name, p.Dir, p.Workspace})
	}
	return json.NewEncoder(w).Encode(m)
}

func writeProjectsTable(w io.Writer, ps []project.Project, why []string) error {
	if len(ps) == 0 {
		_, err := fmt.Fprintln(w, "No projects.")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	header := "NAME\tDIR\tWORKSPACE\tMODE\tMODULES"
	if len(why) > 0 {
		header += "\tCHANGED BY"
	}
	fmt.Fprintln(tw, header)
	for i, p := range ps {
		mods := strings.Join(p.Modules, ",")
		if mods == "" {
			mods = "-"
		}
		row := fmt.Sprintf("%s\t%s\t%s\t%s\t%s", p.Name, p.Dir, p.Workspace, p.Mode, mods)
		if i < len(why) {
			row += "\t" + why[i]
		}
		fmt.Fprintln(tw, row)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, p := range ps {
		for _, problem := range p.Problems {
			fmt.Fprintf(w, "\n! %s: %s", p.Name, problem)
		}
	}
	if hasProblems(ps) {
		fmt.Fprintln(w)
	}
	return nil
}

func hasProblems(ps []project.Project) bool {
	for _, p := range ps {
		if len(p.Problems) > 0 {
			return true
		}
	}
	return false
}
