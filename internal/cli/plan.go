package cli

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/tfgate/tfgate/internal/ci"
	"github.com/tfgate/tfgate/internal/english"
	"github.com/tfgate/tfgate/internal/pipeline"
	"github.com/tfgate/tfgate/internal/render"
	"github.com/tfgate/tfgate/internal/report"
	"github.com/tfgate/tfgate/internal/stage"
)

type planOptions struct {
	Projects         []string
	All              bool
	Changed          bool
	Base             string
	Out              string
	Cost             string
	Format           string
	Parallel         int
	LockTimeout      time.Duration
	DetailedExitcode bool
	Install          bool
	PoliciesFrom     string
	Fresh            bool
	Publish          string
	Metrics          metricsOptions
}

func newPlanCmd(a *app) *cobra.Command {
	var opts planOptions
	cmd := &cobra.Command{
		Use:   "plan [PROJECT...]",
		Short: "Plan the changed projects (or the named ones, or --all) and report",
		Long: `Plan every project the change touches (compared with --base, default the remote
default branch, plus uncommitted files), the named projects, or --all. Each project runs
terraform init, workspace select, plan and show; the report goes to stdout, progress to stderr.`,
		Example: `  # The projects this branch changes (with its uncommitted files)
  tfgate plan
  # One project, fetching terraform if none is installed
  tfgate plan envs/dev/app --install
  # Every project, as markdown
  tfgate plan --all --format markdown
  # In CI: keep the bundles for gate and apply; exit 2 when anything changes
  tfgate plan --out plans --detailed-exitcode`,
		ValidArgsFunction: completeProjects(a),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Projects = args
			col := newCollector(opts.Metrics, report.KindPlan)
			return col.finish(a, runPlan(cmd, a, opts, col))
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.All, "all", false, "plan every project")
	f.BoolVar(&opts.Changed, "changed", false, "with PROJECT names: plan those of the changed projects as the whole changed run would (its base, notes and changed files), one matrix job's share of tfgate publish")
	f.StringVar(&opts.Base, "base", "", "compare with this `ref` to find changed projects (default: the remote default branch)")
	f.StringVar(&opts.Out, "out", "", "write a plan bundle per project (plan file + manifest.json) into `dir`, and the run's result for tfgate publish (tfgate-result.json)")
	f.StringVar(&opts.Cost, "cost", "", "price the projects with this Infracost JSON `file` (infracost diff --format json) instead of the policies' price catalogue (docs/cost.md)")
	f.StringVar(&opts.Format, "format", "text", "output format: text, markdown or json")
	f.StringVar(&opts.Publish, "publish", "auto", "publish to GitHub (sticky comment, status, job summary, outputs, annotations): auto (in GitHub Actions with a token), github or none")
	f.IntVar(&opts.Parallel, "parallel", 0, "projects planned at once (default: number of CPUs)")
	f.DurationVar(&opts.LockTimeout, "lock-timeout", stage.DefaultLockTimeout, "how long terraform waits for a state lock another run holds (and a merge_group plan for the apply of its base commit)")
	f.BoolVar(&opts.DetailedExitcode, "detailed-exitcode", false, "exit 2 when any project has changes")
	f.BoolVar(&opts.Install, "install", false, "download a matching terraform when none is installed")
	f.StringVar(&opts.PoliciesFrom, "policies-from", "", "read policies from the base commit (\"base\", the default when comparing with a base) or the working tree (\"worktree\", for policy authors; refused in CI)")
	f.BoolVar(&opts.Fresh, "fresh", false, "plan every project afresh: reuse no plan of the pull request's previous push (as the label tfgate:fresh-plan does) and, on a laptop, no kept data directory (init runs)")
	addMetricsFlags(cmd, &opts.Metrics)
	completeValues(cmd, "format", reportFormats)
	completeValues(cmd, "publish", publishModes)
	completeValues(cmd, "policies-from", []string{"base", "worktree"})
	return cmd
}

func runPlan(cmd *cobra.Command, a *app, opts planOptions, col *collector) error {
	st, err := a.startRun(cmd, col, opts.Format, opts.Publish, opts.Out)
	if err != nil {
		return err
	}
	ctx, env, gh, key := st.ctx, st.env, st.gh, st.key
	progress := render.NewProgress(a.stderr, isTerminal(a.rawErr), a.color(a.rawErr))
	env.Terraform, env.TerraformEnv = a.terraformOptions(opts.Install), a.terraformEnv()
	if !opts.Fresh { // --fresh reuses nothing: no plan of a previous push, no kept data directory
		env.Terraform.DataDirs = a.keptDataDirs() // init skipped when provably unneeded (laptop)
	}
	env.Parallel, env.LockTimeout, env.Progress = opts.Parallel, opts.LockTimeout, col.watch(progress)
	run, err := pipeline.RunPlan(ctx, pipeline.PlanRequest{
		Env: env, Names: opts.Projects, All: opts.All, Changed: opts.Changed, Base: opts.Base,
		PoliciesFrom: opts.PoliciesFrom, InCI: ci.FromEnv(a.getenv).CI,
		OutDir: opts.Out, PlanKey: key, GitHub: gh, Print: a.printWriter(), CostFile: opts.Cost,
		Fresh: opts.Fresh,
	})
	progress.Close()
	col.run = run
	if run.Projects != nil || err == nil {
		if werr := writeRun(a, opts.Format, run, gh != nil); werr != nil && err == nil {
			err = werr
		}
	}
	if err != nil { // interrupted, or not published: what finished was reported above
		return err
	}
	return planOutcome(run, opts.DetailedExitcode)
}

// writeRun writes the report to stdout. In GitHub Actions a text report is fenced off
// with ::stop-commands:: so that nothing in it (a resource key, a value, a policy message)
// can be read as a workflow command by the runner.
func writeRun(a *app, format string, r report.Run, inActions bool) error {
	if inActions && format != "json" {
		token, err := ci.StopCommandsToken()
		if err != nil {
			return err
		}
		fmt.Fprintf(render.Commands(a.stdout), "::stop-commands::%s\n", token)
		defer fmt.Fprintf(render.Commands(a.stdout), "::%s::\n", token)
	}
	switch format {
	case "json":
		return render.JSON(a.stdout, r)
	case "markdown":
		return render.Markdown(a.stdout, r, render.MarkdownOptions{Version: version()})
	}
	return render.Text(a.stdout, r, render.TextOptions{Color: a.color(a.rawOut), Width: a.width(a.rawOut)})
}

// planOutcome turns a finished run into the exit code: failures first, then denials, then
// changes.
func planOutcome(r report.Run, detailed bool) error {
	if failed := r.Unfinished(); len(failed) > 0 {
		names := make([]string, len(failed))
		for i, p := range failed {
			names[i] = p.Name
		}
		return fmt.Errorf("%d of %d projects failed: %s", len(failed), len(r.Projects), strings.Join(names, ", "))
	}
	if n := r.Denied(); n > 0 {
		return withCode(ExitPolicyDenied, fmt.Errorf("%s denied by policy", english.Plural(n, "project", "projects")))
	}
	if detailed && r.HasChanges() {
		return withCode(ExitChanges, nil)
	}
	return nil
}

// terraformOptions are the environment's say in which terraform runs.
func (a *app) terraformOptions(install bool) stage.TerraformOptions {
	dir, plugins, versions := "", "", ""
	if cache := userCacheDir(runtime.GOOS, a.getenv); cache != "" {
		dir = filepath.Join(cache, "tfgate", "terraform")
		plugins = filepath.Join(cache, "tfgate", "plugins")
		versions = filepath.Join(cache, "tfgate", "terraform-versions.json")
	}
	// A self-hosted runner keeps its tool cache between jobs (and actions/cache can save
	// it on GitHub's): providers are downloaded once per runner, not once per job.
	if tools := a.getenv("RUNNER_TOOL_CACHE"); ci.FromEnv(a.getenv).GitHubActions && filepath.IsAbs(tools) {
		plugins = filepath.Join(tools, "tfgate", "plugins")
	}
	return stage.TerraformOptions{Override: a.getenv("TFGATE_TERRAFORM"), PathEnv: a.getenv("PATH"), InstallDir: dir, Install: install,
		PluginCacheDir: plugins, VersionCache: versions, KeptDataDirs: a.dataDirsCache()}
}

// userCacheDir is os.UserCacheDir of the app's environment: $XDG_CACHE_HOME or ~/.cache,
// ~/Library/Caches on macOS, %LocalAppData% on Windows; "" when it has none.
func userCacheDir(goos string, getenv func(string) string) string {
	var dir string
	switch goos {
	case "windows":
		dir = getenv("LocalAppData")
	case "darwin", "ios":
		if home := getenv("HOME"); home != "" {
			dir = filepath.Join(home, "Library", "Caches")
		}
	default:
		dir = getenv("XDG_CACHE_HOME")
		if home := getenv("HOME"); dir == "" && home != "" {
			dir = filepath.Join(home, ".cache")
		}
	}
	if !filepath.IsAbs(dir) {
		return ""
	}
	return dir
}
