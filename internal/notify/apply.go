package notify

import (
	"context"
	"fmt"
	"strings"

	"github.com/tfgate/tfgate/internal/ci"
	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/render"
	"github.com/tfgate/tfgate/internal/report"
)

// Apply is what an apply run leaves on record.
type Apply struct {
	GitHub *GitHub
	Repo   github.Repo
	Run    report.Run
	// Stopped is the (masked) error of a run that stopped before it judged any project;
	// "" when it did.
	Stopped string
	DryRun  bool // a dry run publishes nothing on GitHub
	Version string
	// AuditLog writes the run to the audit log (nil: none). It is called between the job
	// summary and GitHub, and its error is reported with theirs.
	AuditLog func() error
}

// PublishApply leaves the audit of an apply run: the job summary and the audit log always;
// on GitHub (not in a dry run) a new comment on the pull request — each run adds one, so
// earlier applies stay on record — and the status tfgate/apply on the merge commit. When
// the run stopped before it judged any project, the status and summary say so.
func PublishApply(ctx context.Context, a Apply) error {
	gh := a.GitHub
	if gh == nil {
		return nil
	}
	var errs []string
	opts := render.MarkdownOptions{Version: a.Version, Commit: a.Run.Commit, RunURL: gh.Env.RunURL()}
	if gh.Env.StepSummary != "" {
		sopts := opts
		sopts.Timings = timings(gh.Timings)
		summary := render.StepSummary(a.Run, sopts)
		if a.Stopped != "" {
			summary = render.StoppedComment(report.KindApply, a.Stopped, opts)
		}
		if _, err := ci.AppendSummary(gh.Env.StepSummary, summary); err != nil {
			errs = append(errs, "job summary: "+err.Error())
		}
	}
	if a.AuditLog != nil {
		if err := a.AuditLog(); err != nil {
			errs = append(errs, err.Error())
		}
	}
	if gh.API != nil && !a.DryRun {
		ctx, phase := github.StartPublish(ctx, publishLimit(gh.Env))
		if a.Run.PR > 0 && len(a.Run.Projects) > 0 {
			copts := opts
			marker := CommentMarker{Kind: "apply", PR: a.Run.PR, Part: 1, Parts: 1}.String()
			copts.Marker = func(int, int) string { return marker }
			body := render.ApplyComment(a.Run, copts)
			if _, err := gh.API.CreateIssueComment(ctx, a.Repo, a.Run.PR, body); err != nil {
				errs = append(errs, "apply comment: "+err.Error())
			}
		}
		if a.Run.Commit != "" && (len(a.Run.Projects) > 0 || a.Stopped != "") {
			st := github.Status{State: github.StateSuccess, Context: StatusApply, Description: render.StatusDescription(a.Run), TargetURL: gh.Env.RunURL()}
			switch {
			case a.Stopped != "":
				st.State, st.Description = github.StateError, "tfgate apply could not run: see the run's log"
			case len(a.Run.Unfinished()) > 0 || a.Run.Count(report.StatusRefused) > 0:
				st.State = github.StateFailure
			}
			if _, err := gh.API.CreateStatus(ctx, a.Repo, a.Run.Commit, st); err != nil {
				errs = append(errs, "status: "+err.Error())
			}
		}
		if err := phase.End(nil); err != nil {
			errs = append(errs, err.Error())
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("could not publish the apply's audit (the report above is complete): %s", strings.Join(errs, "; "))
	}
	return nil
}
