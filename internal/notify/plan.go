package notify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path"
	"strings"

	"github.com/tfgate/tfgate/internal/ci"
	"github.com/tfgate/tfgate/internal/git"
	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/render"
	"github.com/tfgate/tfgate/internal/report"
)

// Plan publishes one plan run: a pending status when it starts, then the sticky comment,
// the final status, the job summary, the step outputs and the annotations. `plan` and
// `publish` (the matrix jobs' results merged) both publish through it, so that the two
// give the same review byte for byte.
type Plan struct {
	gh       *GitHub
	repo     github.Repo
	root     string // the repository root (-C), to put annotations on paths from the git top level
	warn     func(string)
	identity string // learnt from the pending status tfgate created
	version  string // tfgate's, for the footer
	errs     []string
	// stale: the pull request comment could not be updated, so it still shows an earlier
	// run's plan; the status must not vouch for it.
	stale bool
}

// StartPlan sets the pending status on the commit being planned. root is the repository
// root (-C); warn takes what a fork's read-only token may not publish.
func StartPlan(ctx context.Context, gh *GitHub, root string, warn func(string), version string) *Plan {
	pub := &Plan{gh: gh, repo: github.Repo{Owner: gh.Event.Owner, Name: gh.Event.Repo}, root: root, warn: warn, version: version}
	if gh.API != nil && gh.Event.HeadSHA != "" {
		creator, err := gh.API.CreateStatus(ctx, pub.repo, gh.Event.HeadSHA, github.Status{
			State: github.StatePending, Context: StatusPlan, Description: "planning…", TargetURL: gh.Env.RunURL()})
		pub.try("pending status", err)
		// Whatever token this is (GITHUB_TOKEN, an App's), the status it just created says
		// who it writes as: the author to look for on the sticky comment.
		pub.identity = creator.Login
	}
	return pub
}

// Finish publishes the run, or — when the run stopped before planning (stopped != nil) —
// that it stopped: the pull request must not keep an earlier commit's plan looking current.
// Every part is attempted even when one fails: the log and the job summary hold the whole
// report whatever GitHub said. The error names everything that could not be published.
func (pub *Plan) Finish(ctx context.Context, run report.Run, stopped error) error {
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
		pctx, phase := github.StartPublish(ctx, publishLimit(gh.Env))
		pub.comment(pctx, run, parts, opts)
		if stopped == nil {
			pub.labelProjects(pctx, run)
		}
		pub.status(pctx, run, stopped)
		if err := phase.End(nil); err != nil {
			pub.errs = append(pub.errs, err.Error())
		}
	}
	if len(pub.errs) > 0 {
		return fmt.Errorf("could not publish to GitHub (the report above is complete): %s", strings.Join(pub.errs, "; "))
	}
	return nil
}

func (pub *Plan) comment(ctx context.Context, run report.Run, parts []string, opts render.MarkdownOptions) {
	gh := pub.gh
	n := gh.Event.PRNumber
	if n <= 0 || !gh.Event.ForPullRequest() {
		return
	}
	if parts == nil {
		// PublishComment writes each part's marker line itself: render leaves room for it.
		opts.Marker = func(int, int) string { return "" }
		opts.Limit = github.MaxCommentChars - MarkerReserve
		parts = render.CommentParts(run, opts)
	}
	login := gh.Identity
	if login == "" {
		login = pub.identity
	}
	id, err := github.ResolveIdentity(ctx, gh.API, login)
	if err == nil {
		var p Published
		p, err = PublishComment(ctx, gh.API, pub.repo, n, "plan", parts, id)
		if p.Duplicates > 0 {
			pub.warn(fmt.Sprintf("deleted %d duplicate plan comment(s) tfgate had left on #%d: the pull request keeps one", p.Duplicates, n))
		}
	}
	pub.stale = pub.try("pull request comment", err)
}

func (pub *Plan) status(ctx context.Context, run report.Run, stopped error) {
	gh := pub.gh
	if gh.Event.HeadSHA == "" {
		return
	}
	st := github.Status{State: github.StateSuccess, Context: StatusPlan, Description: render.StatusDescription(run), TargetURL: gh.Env.RunURL()}
	switch {
	case stopped != nil:
		st.State, st.Description = github.StateError, "tfgate plan could not run: see the run's log"
		var retry RetryStatus
		if errors.As(stopped, &retry) {
			st.State, st.Description = github.StateFailure, render.FitStatus(retry.RetryStatus())
		}
	case pub.stale:
		st.State, st.Description = github.StateError, staleComment
	case len(run.Unfinished()) > 0 || run.Denied() > 0:
		st.State = github.StateFailure
	}
	_, err := gh.API.CreateStatus(ctx, pub.repo, gh.Event.HeadSHA, st)
	pub.try("status", err)
}

// staleComment is tfgate/plan's description when the comment could not be updated.
const staleComment = "the pull request comment could not be updated (it shows an earlier plan): see the run's log"

// try records a failed publication, and reports whether it failed. A fork's pull request
// has a read-only token: what it may not write is a warning there, not an error.
func (pub *Plan) try(what string, err error) bool {
	if err == nil {
		return false
	}
	if pub.gh.Event.Fork && github.HTTPStatus(err) == http.StatusForbidden {
		pub.warn(fmt.Sprintf("%s not published: the token of a pull request from a fork is read-only (%v)", what, err))
		return false
	}
	pub.errs = append(pub.errs, what+": "+err.Error())
	return true
}

// topLevelPrefix is root relative to the git top level ("" when they are the same or git
// cannot tell): annotations name files as the pull request's diff does.
func topLevelPrefix(ctx context.Context, root string) string {
	prefix, err := git.Git{Dir: root}.Prefix(ctx)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(prefix, "/")
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
