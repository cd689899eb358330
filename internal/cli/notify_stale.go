package cli

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tfgate/tfgate/internal/english"
	"github.com/tfgate/tfgate/internal/git"
	"github.com/tfgate/tfgate/internal/pipeline"
)

type notifyStaleOptions struct {
	Base     string
	Replan   string
	Workflow string
	Publish  string
	Format   string
}

func newNotifyStaleCmd(a *app) *cobra.Command {
	var opts notifyStaleOptions
	cmd := &cobra.Command{
		Use:   "notify-stale",
		Short: "Tell the open pull requests whose plans a push to the default branch made stale, and re-plan them",
		Long: `Run after apply on every push to the default branch. tfgate finds the projects the push
changed (since --base; on a push, since the last commit a run told for, below; a shared
file relates every project), lists the open pull requests labelled with them (tfgate plan labels each pull
request tfgate:<project> for the projects it plans) and, for each, sets tfgate/gate on its
head to "stale: main changed <projects> (#<merge>) — re-plan" and puts a banner into its
plan comment. With --replan auto (the default) or always it also starts the plan workflow
(--workflow) by workflow_dispatch with the inputs pr and base, which plans the pull request
again on GitHub's test merge with the new default branch (the token needs actions: write;
without it auto warns and only tells, always fails). A re-plan's status is pending until it
is done; one that cannot be started leaves the status failure.

On a push (without --base) it tells for the changes since the last commit a run told
for, not only since the push's before: a merge whose run was cancelled before this step
is told for by the next run. Each run records what it told as the status tfgate/stale on
the pushed commit (success: every related pull request told); the next run walks the
default branch back (at most 20 commits) to the newest such record that GitHub's account
of its run confirms (a completed push run of that commit).

API calls: 1 (who the token is, unless the config names it) + 1 per commit looked back at
(its statuses; usually the push's before alone) + 1 for the run behind the record found +
1 per earlier merge (its pull request) + 1 (the merged pull request of the commit) + one
per changed project's label + one for tfgate:* (pull requests planning more projects than
they carry labels for) + 1 (the record), then 5 per related pull request; none for pull
requests that plan other projects.

Exit codes: 0 done (also when no pull request was stale), 1 errors.`,
		Example: `  # After the apply of a push to the default branch
  tfgate notify-stale
  # Tell the pull requests, but start no plan workflow
  tfgate notify-stale --replan never --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runNotifyStale(cmd, a, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Base, "base", "", "the default branch's `commit` before the push (default: the push event's before)")
	f.StringVar(&opts.Replan, "replan", pipeline.ReplanAuto, "start the plan workflow of each stale pull request: auto (when the token may), always (an error when it may not) or never")
	f.StringVar(&opts.Workflow, "workflow", "plan.yml", "the plan workflow's file name under .github/workflows (it needs the workflow_dispatch trigger with the inputs pr and base)")
	f.StringVar(&opts.Publish, "publish", "auto", "GitHub access: auto (in GitHub Actions with a token) or github")
	f.StringVar(&opts.Format, "format", "text", "output format: text or json")
	completeValues(cmd, "format", dataFormats)
	completeValues(cmd, "publish", notifyPublishModes)
	completeValues(cmd, "replan", replanModes)
	return cmd
}

func runNotifyStale(cmd *cobra.Command, a *app, opts notifyStaleOptions) error {
	if err := oneOf("--format", opts.Format, dataFormats...); err != nil {
		return err
	}
	if err := oneOf("--publish", opts.Publish, notifyPublishModes...); err != nil {
		return err
	}
	if err := oneOf("--replan", opts.Replan, replanModes...); err != nil {
		return err
	}
	ctx := cmd.Context()
	env, err := a.env(ctx)
	if err != nil {
		return err
	}
	gh, err := a.githubRun(env.Config, opts.Publish, "")
	if err != nil {
		return err
	}
	res, err := pipeline.RunNotifyStale(ctx, pipeline.StaleRequest{
		Env: env, Base: opts.Base, GitHub: gh, Replan: opts.Replan, Workflow: opts.Workflow,
	})
	if werr := writeStale(a, opts.Format, res); werr != nil && err == nil {
		err = werr
	}
	return err
}

// staleJSON is notify-stale's --format json output.
type staleJSON struct {
	Commit   string          `json:"commit"`
	Merge    int             `json:"merge,omitempty"`
	Since    string          `json:"since"`
	Earlier  []int           `json:"earlier_merges"`
	Projects []string        `json:"projects"`
	Shared   []string        `json:"shared"`
	Pulls    []staleJSONPull `json:"pull_requests"`
}

type staleJSONPull struct {
	Number     int      `json:"number"`
	Head       string   `json:"head"`
	Projects   []string `json:"projects"`
	Replanning bool     `json:"replanning"`
	Note       string   `json:"note,omitempty"`
}

func writeStale(a *app, format string, res pipeline.StaleResult) error {
	if format == "json" {
		out := staleJSON{Commit: res.Change.Commit, Merge: res.Merge, Since: res.Change.Since, Earlier: append([]int{}, res.Change.Earlier...), Projects: nonNil(res.Change.Projects), Shared: nonNil(res.Change.Shared), Pulls: []staleJSONPull{}}
		for _, p := range res.Pulls {
			out.Pulls = append(out.Pulls, staleJSONPull{Number: p.Number, Head: p.Head, Projects: p.Projects, Replanning: p.Replanning, Note: p.Note})
		}
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	var b strings.Builder
	if n := len(res.Change.Earlier); n > 0 {
		fmt.Fprintf(&b, "told for the changes since %s, the last commit a run told for: %s merged after it (no run told for %s)\n",
			git.ShortSHA(res.Change.Since), mergeList(res.Change.Earlier), english.Agree(n, "it", "them"))
	}
	switch {
	case len(res.Change.Projects) == 0 && len(res.Change.Shared) == 0:
		fmt.Fprintf(&b, "the push changed no project: no plan went stale\n")
	case len(res.Pulls) == 0:
		fmt.Fprintf(&b, "changed %s: no open pull request plans it\n", changedWhat(res))
	default:
		fmt.Fprintf(&b, "changed %s: %d stale pull request(s)\n", changedWhat(res), len(res.Pulls))
		for _, p := range res.Pulls {
			what := "told"
			if p.Replanning {
				what = "re-planning"
			}
			fmt.Fprintf(&b, "  #%d %s (%s)", p.Number, what, strings.Join(p.Projects, ", "))
			if p.Note != "" {
				fmt.Fprintf(&b, ": %s", p.Note)
			}
			b.WriteString("\n")
		}
	}
	_, err := fmt.Fprint(a.stdout, a.masker.String(b.String()))
	return err
}

func changedWhat(res pipeline.StaleResult) string {
	parts := append([]string{}, res.Change.Projects...)
	if len(res.Change.Shared) > 0 {
		parts = append(parts, "shared files "+strings.Join(res.Change.Shared, ", "))
	}
	return strings.Join(parts, ", ")
}

func mergeList(ns []int) string {
	items := make([]string, len(ns))
	for i, n := range ns {
		items[i] = fmt.Sprintf("#%d", n)
	}
	return strings.Join(items, ", ")
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
