package pipeline

import (
	"context"
	"fmt"
	"strings"

	"github.com/tfgate/tfgate/internal/ci"
	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/render"
	"github.com/tfgate/tfgate/internal/report"
)

// publish leaves the audit of an apply run: the job summary and the audit log always; on
// GitHub (not in a dry run) a new comment on the pull request — each run adds one, so
// earlier applies stay on record — and the status tfgate/apply on the merge commit. When
// the run stopped before it judged any project, the status and summary say so.
func (a *applier) publish(ctx context.Context, runErr error) error {
	gh := a.req.GitHub
	if gh == nil {
		return nil
	}
	var errs []string
	opts := render.MarkdownOptions{Version: a.req.TfgateVersion, Commit: a.run.Commit, RunURL: gh.Env.RunURL()}
	var stopped string
	if runErr != nil && a.run.Projects == nil {
		stopped = a.req.Masker.String(runErr.Error())
	}
	if gh.Env.StepSummary != "" {
		sopts := opts
		sopts.Timings = timings(gh.Timings)
		summary := render.StepSummary(a.run, sopts)
		if stopped != "" {
			summary = render.StoppedComment(report.KindApply, stopped, opts)
		}
		if _, err := ci.AppendSummary(gh.Env.StepSummary, summary); err != nil {
			errs = append(errs, "job summary: "+err.Error())
		}
	}
	if a.req.AuditLog != "" && len(a.run.Projects) > 0 {
		entries := AuditEntries(a.run, a.repo.String(), gh.Env.RunURL(), a.req.TfgateVersion, a.req.Now())
		if err := AppendAudit(a.req.AuditLog, entries); err != nil {
			errs = append(errs, err.Error())
		}
	}
	if gh.API != nil && !a.req.DryRun {
		ctx, phase := github.StartPublish(ctx, publishLimit(gh.Env))
		if a.run.PR > 0 && len(a.run.Projects) > 0 {
			copts := opts
			marker := github.Marker{Kind: "apply", PR: a.run.PR, Part: 1, Parts: 1}.String()
			copts.Marker = func(int, int) string { return marker }
			body := render.ApplyComment(a.run, copts)
			if _, err := gh.API.CreateIssueComment(ctx, a.repo, a.run.PR, body); err != nil {
				errs = append(errs, "apply comment: "+err.Error())
			}
		}
		if a.run.Commit != "" && (len(a.run.Projects) > 0 || stopped != "") {
			st := github.Status{State: "success", Context: StatusApply, Description: render.StatusDescription(a.run), TargetURL: gh.Env.RunURL()}
			switch {
			case stopped != "":
				st.State, st.Description = "error", "tfgate apply could not run: see the run's log"
			case len(a.run.Unfinished()) > 0 || a.run.Count(report.StatusRefused) > 0:
				st.State = "failure"
			}
			if _, err := gh.API.CreateStatus(ctx, a.repo, a.run.Commit, st); err != nil {
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
