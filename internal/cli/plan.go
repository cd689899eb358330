package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tfgate/tfgate/internal/ci"
	"github.com/tfgate/tfgate/internal/pipeline"
	"github.com/tfgate/tfgate/internal/render"
)

type planOptions struct {
	Projects         []string
	All              bool
	Base             string
	Out              string
	Format           string
	Parallel         int
	DetailedExitcode bool
	Install          bool
	PoliciesFrom     string
}

func newPlanCmd(a *app) *cobra.Command {
	var opts planOptions
	cmd := &cobra.Command{
		Use:   "plan [PROJECT...]",
		Short: "Plan the changed projects (or the named ones, or --all) and report",
		Long: `Plan every project the change touches (compared with --base, default the remote
default branch, plus uncommitted files), the named projects, or --all. Each project runs
terraform init, workspace select, plan and show; the report goes to stdout, progress to stderr.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Projects = args
			return runPlan(cmd, a, opts)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.All, "all", false, "plan every project")
	f.StringVar(&opts.Base, "base", "", "compare with this ref to find changed projects (default: the remote default branch)")
	f.StringVar(&opts.Out, "out", "", "write a plan bundle per project (plan file + manifest.json) into DIR")
	f.StringVar(&opts.Format, "format", "text", "output format: text or json")
	f.IntVar(&opts.Parallel, "parallel", 0, "projects planned at once (default: number of CPUs)")
	f.BoolVar(&opts.DetailedExitcode, "detailed-exitcode", false, "exit 2 when any project has changes")
	f.BoolVar(&opts.Install, "install", false, "download a matching terraform when none is installed")
	f.StringVar(&opts.PoliciesFrom, "policies-from", "", "read policies from the base commit (\"base\", the default when comparing with a base) or the working tree (\"worktree\", for policy authors; refused in CI)")
	return cmd
}

func runPlan(cmd *cobra.Command, a *app, opts planOptions) error {
	if err := oneOf("--format", opts.Format, "text", "json"); err != nil {
		return err
	}
	if opts.Parallel < 0 {
		return fmt.Errorf("--parallel %d: want a positive number (0 = number of CPUs)", opts.Parallel)
	}
	if opts.Out != "" {
		out, err := outDir(opts.Out)
		if err != nil {
			return err
		}
		opts.Out = out
	}
	if opts.All && len(opts.Projects) > 0 {
		return fmt.Errorf("--all and project names are exclusive: pass one or the other")
	}
	ctx := cmd.Context()
	root, cfg, err := a.repository(ctx)
	if err != nil {
		return err
	}
	sel, err := pipeline.Select(ctx, pipeline.SelectOptions{Root: root, Config: cfg, Names: opts.Projects,
		All: opts.All, Changed: !opts.All && len(opts.Projects) == 0, Base: opts.Base})
	if err != nil {
		return err
	}
	notes := pipeline.RemovedNotes(sel.Removed)
	if len(sel.Projects) == 0 {
		return writePlanReport(a, opts.Format, render.Report{Base: sel.Base, MergeBase: short(sel.MergeBase), Notes: notes})
	}

	pols, err := a.loadPolicies(ctx, root, cfg, opts.PoliciesFrom, firstNonEmpty(sel.Base, opts.Base), sel.Files)
	if err != nil {
		return err
	}
	bin, err := a.resolveTerraform(ctx, cfg, opts.Install)
	if err != nil {
		return err
	}
	commit, headErr := ci.Git{Dir: root}.Head(ctx)
	dirty := false
	if opts.Out != "" {
		// A bundle exists to prove which commit was planned: without one it is worthless.
		if headErr != nil {
			return fmt.Errorf("--out: plan bundles record the commit they plan: %w", headErr)
		}
		if dirty, err = (ci.Git{Dir: root}).Dirty(ctx); err != nil {
			return err
		}
		if dirty {
			fmt.Fprintf(a.stderr, "warning: the working tree has uncommitted changes: the bundles record commit %s but plan more than it (manifest \"dirty\": true)\n", short(commit))
		}
	}
	progress := render.NewProgress(a.stderr, isTerminal(a.rawErr), a.color(a.rawErr))
	report, err := pipeline.Plan(ctx, pipeline.PlanOptions{
		Root: root, Projects: sel.Projects, Binary: bin, Env: a.terraformEnv(),
		OutDir: opts.Out, Parallel: opts.Parallel, Commit: commit, Dirty: dirty, Masks: a.masker.Values(),
		Progress: progress, TfgateVersion: version(), Policies: pols, ChangedFiles: sel.Files,
	})
	progress.Close()
	report.Base, report.MergeBase = sel.Base, short(sel.MergeBase)
	report.Policies, report.PolicyNotes, report.Notes = pols.Source, pols.Notes, notes
	if werr := writePlanReport(a, opts.Format, report); werr != nil && err == nil {
		err = werr
	}
	if err != nil { // interrupted: what finished was reported above
		return err
	}
	return planOutcome(report, opts.DetailedExitcode)
}

func writePlanReport(a *app, format string, r render.Report) error {
	if format == "json" {
		return render.JSON(a.stdout, r)
	}
	return render.Text(a.stdout, r, render.TextOptions{Color: a.color(a.rawOut), Width: a.width(a.rawOut)})
}

// planOutcome turns a finished report into the exit code: failures first, then changes.
func planOutcome(r render.Report, detailed bool) error {
	if failed := pipeline.Failed(r); len(failed) > 0 {
		names := make([]string, len(failed))
		for i, p := range failed {
			names[i] = p.Name
		}
		return fmt.Errorf("%d of %d projects failed: %s", len(failed), len(r.Projects), strings.Join(names, ", "))
	}
	if n := r.Denied(); n > 0 {
		return withCode(ExitPolicyDenied, fmt.Errorf("%s denied by policy", plural(n, "project")))
	}
	if detailed && r.Totals().HasChanges() {
		return withCode(ExitChanges, nil)
	}
	return nil
}

// outDir makes --out absolute (terraform runs in each project's dir) and refuses a
// directory that already holds files: stale bundles next to new ones could be applied.
func outDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	entries, err := os.ReadDir(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return abs, nil
	case err != nil:
		return "", fmt.Errorf("--out %s: %w", dir, err)
	case len(entries) > 0:
		return "", fmt.Errorf("--out %s is not empty: bundles from an earlier run could be mistaken for this one's; use a new or empty directory", dir)
	}
	return abs, nil
}
