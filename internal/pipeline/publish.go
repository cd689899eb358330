package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/tfgate/tfgate/internal/ci"
	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/render"
	"github.com/tfgate/tfgate/internal/report"
)

// StatusPlan is the commit status context of `tfgate plan`, for branch protection to require.
const StatusPlan = "tfgate/plan"

// Publish is where and how a run is published on GitHub.
type Publish struct {
	API      github.API
	Env      ci.GitHub
	Event    ci.Event
	Identity string // config github.identity; "" = find out
	Version  string // tfgate's, for the footer
	// ArtifactName is the name the plan bundles are uploaded under (a step output).
	ArtifactName string
	Annotate     io.Writer    // workflow commands (annotations) go here: the step's log
	Warn         func(string) // what could not be published where that is expected (a fork's read-only token)
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

// Publisher publishes one plan run: a pending status when it starts, then the sticky
// comment, the final status, the job summary, the step outputs and the annotations.
type Publisher struct {
	p    Publish
	repo github.Repo
	errs []string
}

// StartPlan sets the pending status on the commit being planned.
func StartPlan(ctx context.Context, p Publish) *Publisher {
	if p.Warn == nil {
		p.Warn = func(string) {}
	}
	pub := &Publisher{p: p, repo: github.Repo{Owner: p.Event.Owner, Name: p.Event.Repo}}
	if p.Event.HeadSHA != "" {
		pub.try("pending status", p.API.CreateStatus(ctx, pub.repo, p.Event.HeadSHA, github.Status{
			State: "pending", Context: StatusPlan, Description: "planning…", TargetURL: p.Env.RunURL()}))
	}
	return pub
}

// FinishPlan publishes the finished run. Every part is attempted even when one fails: the
// log and the job summary hold the whole report whatever GitHub said. The error names
// everything that could not be published.
func (pub *Publisher) FinishPlan(ctx context.Context, run report.Run) error {
	p := pub.p
	opts := render.MarkdownOptions{Version: p.Version, Commit: p.Event.HeadSHA, RunURL: p.Env.RunURL()}
	if p.Annotate != nil {
		for _, a := range render.Annotations(run) {
			fmt.Fprintln(p.Annotate, render.WorkflowCommand(a))
		}
	}
	if p.Env.StepSummary != "" {
		if _, err := ci.AppendSummary(p.Env.StepSummary, render.StepSummary(run, opts)); err != nil {
			pub.errs = append(pub.errs, "job summary: "+err.Error())
		}
	}
	if p.Env.Output != "" {
		if err := ci.WriteOutputs(p.Env.Output, planOutputs(run, p.ArtifactName)); err != nil {
			pub.errs = append(pub.errs, "step outputs: "+err.Error())
		}
	}
	if n := p.Event.PRNumber; n > 0 && isPullRequest(p.Event.Name) {
		// PublishComment writes each part's marker line itself: render leaves room for it.
		opts.Marker = func(int, int) string { return "" }
		opts.Limit = github.MaxCommentChars - github.MarkerReserve
		id, err := github.ResolveIdentity(ctx, p.API, p.Identity)
		if err == nil {
			_, err = github.PublishComment(ctx, p.API, pub.repo, n, "plan", render.CommentParts(run, opts), id)
		}
		pub.try("pull request comment", err)
	}
	if p.Event.HeadSHA != "" {
		state := "success"
		if len(run.Unfinished()) > 0 || run.Denied() > 0 {
			state = "failure"
		}
		pub.try("status", p.API.CreateStatus(ctx, pub.repo, p.Event.HeadSHA, github.Status{
			State: state, Context: StatusPlan, Description: render.StatusDescription(run), TargetURL: p.Env.RunURL()}))
	}
	if len(pub.errs) > 0 {
		return fmt.Errorf("could not publish to GitHub (the report above is complete): %s", strings.Join(pub.errs, "; "))
	}
	return nil
}

// try records a failed publication. A fork's pull request has a read-only token: what it
// may not write is a warning there, not an error.
func (pub *Publisher) try(what string, err error) {
	if err == nil {
		return
	}
	if pub.p.Event.Fork && github.HTTPStatus(err) == http.StatusForbidden {
		pub.p.Warn(fmt.Sprintf("%s not published: the token of a pull request from a fork is read-only (%v)", what, err))
		return
	}
	pub.errs = append(pub.errs, what+": "+err.Error())
}

func isPullRequest(event string) bool {
	return event == "pull_request" || event == "pull_request_target" || event == "pull_request_review"
}

// planOutputs are the step outputs of a plan: has_changes, projects (a JSON array of the
// planned projects' names, in project order, as the Action documents) and artifact_name
// (empty when no bundle was written: there is nothing to upload).
func planOutputs(run report.Run, artifact string) []ci.Output {
	names := make([]string, 0, len(run.Projects))
	bundles := false
	for _, p := range run.Projects {
		names = append(names, p.Name)
		bundles = bundles || p.Bundle != ""
	}
	if !bundles {
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
