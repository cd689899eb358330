package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path"
	"strings"

	"github.com/tfgate/tfgate/internal/ci"
	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/render"
	"github.com/tfgate/tfgate/internal/report"
)

// StatusPlan is the commit status context of `tfgate plan`, for branch protection to require.
const StatusPlan = "tfgate/plan"

// GitHubRun is the GitHub Actions context of a run: where it reports. In Actions the job
// summary, step outputs and annotations are always written (they are files and log lines);
// the comment and statuses only when API is set (--publish).
type GitHubRun struct {
	Env   ci.GitHub
	Event ci.Event
	API   github.API // nil: nothing goes through GitHub's API
	// Identity is the login tfgate posts as, from the config; "" = learn it (from the status
	// tfgate creates, else GET /user).
	Identity string
	// ArtifactName is the name the plan bundles are uploaded under (a step output).
	ArtifactName string
	Annotate     io.Writer // workflow commands (annotations) go here: the step's log
	// Timings gives the projects' phases once the run is over, for the job summary's timing
	// table (metrics.Recorder.Phases); nil: no table.
	Timings func() map[string][]report.Phase
}

// timings are the phases for the job summary, nil without a source.
func timings(f func() map[string][]report.Phase) map[string][]report.Phase {
	if f == nil {
		return nil
	}
	return f()
}

// PlanGuard refuses what must not be planned at all: under pull_request_target the
// workflow runs with the base repository's secrets, and terraform runs providers and
// external data sources from the checked-out code, so a fork's code is never planned there
// unless the base commit's config allows it.
func PlanGuard(ev ci.Event, base *config.Config) error {
	if ev.Name == "pull_request_target" && ev.Fork && !base.GitHub.AllowPullRequestTargetForks {
		return fmt.Errorf("refusing to plan pull request #%d from the fork %s under pull_request_target: the workflow's secrets would reach code from outside the repository (terraform runs providers and external data sources from it). Plan forks under pull_request (read-only token, no secrets), or set github.allow_pull_request_target_forks: true in the base branch's %s if you trust every fork",
			ev.PRNumber, ev.HeadRepo, config.FileName)
	}
	return nil
}

// guardPlan applies PlanGuard with the config read from the event's base commit: a fork
// must not be able to allow itself.
func guardPlan(ctx context.Context, req PlanRequest) error {
	ev := req.GitHub.Event
	if ev.Name != "pull_request_target" || !ev.Fork {
		return nil
	}
	base := config.Default()
	if ev.BaseSHA != "" {
		_, cfg, _, err := BaseConfig(ctx, req.Root, req.ConfigFile, ev.BaseSHA)
		if err != nil {
			return fmt.Errorf("read the base commit's configuration for the fork rule: %w", err)
		}
		base = cfg
	}
	return PlanGuard(ev, base)
}

// publisher publishes one plan run: a pending status when it starts, then the sticky
// comment, the final status, the job summary, the step outputs and the annotations. `plan`
// and `publish` (the matrix jobs' results merged) both publish through it, so that the
// two give the same review byte for byte.
type publisher struct {
	gh       *GitHubRun
	repo     github.Repo
	root     string // the repository root (-C), to put annotations on paths from the git top level
	warn     func(string)
	identity string // learnt from the pending status tfgate created
	version  string // tfgate's, for the footer
	errs     []string
}

// startPublish sets the pending status on the commit being planned. root is the
// repository root (-C); warn takes what a fork's read-only token may not publish.
func startPublish(ctx context.Context, gh *GitHubRun, root string, warn func(string), version string) *publisher {
	pub := &publisher{gh: gh, repo: github.Repo{Owner: gh.Event.Owner, Name: gh.Event.Repo}, root: root, warn: warn, version: version}
	if gh.API != nil && gh.Event.HeadSHA != "" {
		creator, err := gh.API.CreateStatus(ctx, pub.repo, gh.Event.HeadSHA, github.Status{
			State: "pending", Context: StatusPlan, Description: "planning…", TargetURL: gh.Env.RunURL()})
		pub.try("pending status", err)
		// Whatever token this is (GITHUB_TOKEN, an App's), the status it just created says
		// who it writes as: the author to look for on the sticky comment.
		pub.identity = creator.Login
	}
	return pub
}

// finish publishes the run, or — when the run stopped before planning (stopped != nil) —
// that it stopped: the pull request must not keep an earlier commit's plan looking current.
// Every part is attempted even when one fails: the log and the job summary hold the whole
// report whatever GitHub said. The error names everything that could not be published.
func (pub *publisher) finish(ctx context.Context, run report.Run, stopped error) error {
	gh := pub.gh
	opts := render.MarkdownOptions{Version: pub.version, Commit: gh.Event.HeadSHA, RunURL: gh.Env.RunURL()}
	summary := ""
	var parts []string
	if stopped != nil {
		msg := stopped.Error()
		summary = render.StoppedComment(report.KindPlan, msg, opts)
		parts = []string{summary}
	} else {
		sopts := opts
		sopts.Timings = timings(gh.Timings)
		summary = render.StepSummary(run, sopts)
		if gh.Annotate != nil {
			prefix := topLevelPrefix(ctx, pub.root)
			for _, a := range render.Annotations(run) {
				if a.File != "" && prefix != "" {
					a.File = path.Join(prefix, a.File)
				}
				fmt.Fprintln(gh.Annotate, render.WorkflowCommand(a))
			}
		}
	}
	if gh.Env.StepSummary != "" {
		if _, err := ci.AppendSummary(gh.Env.StepSummary, summary); err != nil {
			pub.errs = append(pub.errs, "job summary: "+err.Error())
		}
	}
	if gh.Env.Output != "" {
		if err := ci.WriteOutputs(gh.Env.Output, planOutputs(run, gh.ArtifactName)); err != nil {
			pub.errs = append(pub.errs, "step outputs: "+err.Error())
		}
	}
	if gh.API != nil {
		pub.comment(ctx, run, parts, opts)
		if stopped == nil {
			pub.labelProjects(ctx, run)
		}
		pub.status(ctx, run, stopped)
	}
	if len(pub.errs) > 0 {
		return fmt.Errorf("could not publish to GitHub (the report above is complete): %s", strings.Join(pub.errs, "; "))
	}
	return nil
}

func (pub *publisher) comment(ctx context.Context, run report.Run, parts []string, opts render.MarkdownOptions) {
	gh := pub.gh
	n := gh.Event.PRNumber
	if n <= 0 || !forPullRequest(gh.Event) {
		return
	}
	if parts == nil {
		// PublishComment writes each part's marker line itself: render leaves room for it.
		opts.Marker = func(int, int) string { return "" }
		opts.Limit = github.MaxCommentChars - github.MarkerReserve
		parts = render.CommentParts(run, opts)
	}
	login := gh.Identity
	if login == "" {
		login = pub.identity
	}
	id, err := github.ResolveIdentity(ctx, gh.API, login)
	if err == nil {
		_, err = github.PublishComment(ctx, gh.API, pub.repo, n, "plan", parts, id)
	}
	pub.try("pull request comment", err)
}

func (pub *publisher) status(ctx context.Context, run report.Run, stopped error) {
	gh := pub.gh
	if gh.Event.HeadSHA == "" {
		return
	}
	st := github.Status{State: "success", Context: StatusPlan, Description: render.StatusDescription(run), TargetURL: gh.Env.RunURL()}
	switch {
	case stopped != nil:
		st.State, st.Description = "error", "tfgate plan could not run: see the run's log"
		var waitErr *QueueWaitError
		if errors.As(stopped, &waitErr) {
			st.State, st.Description = "failure", waitErr.Status()
		}
	case len(run.Unfinished()) > 0 || run.Denied() > 0:
		st.State = "failure"
	}
	_, err := gh.API.CreateStatus(ctx, pub.repo, gh.Event.HeadSHA, st)
	pub.try("status", err)
}

// try records a failed publication. A fork's pull request has a read-only token: what it
// may not write is a warning there, not an error.
func (pub *publisher) try(what string, err error) {
	if err == nil {
		return
	}
	if pub.gh.Event.Fork && github.HTTPStatus(err) == http.StatusForbidden {
		pub.warn(fmt.Sprintf("%s not published: the token of a pull request from a fork is read-only (%v)", what, err))
		return
	}
	pub.errs = append(pub.errs, what+": "+err.Error())
}

// topLevelPrefix is root relative to the git top level ("" when they are the same or git
// cannot tell): annotations name files as the pull request's diff does.
func topLevelPrefix(ctx context.Context, root string) string {
	prefix, err := ci.Git{Dir: root}.Prefix(ctx)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(prefix, "/")
}

func isPullRequest(event string) bool {
	return event == "pull_request" || event == "pull_request_target" || event == "pull_request_review"
}

// planOutputs are the step outputs of a plan: has_changes, projects (a JSON array of the
// planned projects' names, in project order, as the Action documents) and artifact_name:
// empty unless every project planned and left a bundle — the Action uploads nothing else.
func planOutputs(run report.Run, artifact string) []ci.Output {
	names := make([]string, 0, len(run.Projects))
	bundles := false
	for _, p := range run.Projects {
		names = append(names, p.Name)
		bundles = bundles || p.Bundle != ""
	}
	if !bundles || len(run.Unfinished()) > 0 {
		artifact = ""
	}
	data, err := json.Marshal(names)
	if err != nil { // strings: cannot happen
		data = []byte("[]")
	}
	return []ci.Output{
		{Name: "has_changes", Value: fmt.Sprint(run.HasChanges())},
		{Name: "projects", Value: string(data)},
		{Name: "artifact_name", Value: artifact},
	}
}
