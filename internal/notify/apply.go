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
	// Already: an earlier run had applied every project this run applied (a re-run, or a
	// late run of a merge a later one caught up). Its audit may or may not have reached
	// GitHub: the comment is posted only when none of tfgate's carries the merge commit.
	Already bool
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
			body := render.ApplyComment(a.Run, copts) + "\n" + AuditMarker(a.Run.Commit)
			if done, err := auditPublished(ctx, a); err != nil {
				errs = append(errs, "apply comment: "+err.Error())
			} else if !done {
				if _, err := gh.API.CreateIssueComment(ctx, a.Repo, a.Run.PR, body); err != nil {
					errs = append(errs, "apply comment: "+err.Error())
				}
			}
		}
		// A merge that changes no project gets its status too: it is the record an apply
		// run's catch-up looks for (the last merge tfgate handled).
		if a.Run.Commit != "" {
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

// AuditMarker ends an apply comment: the merge commit it is the audit of, so that a later
// run of the same merge finds it. Like every marker it counts only on tfgate's comment.
func AuditMarker(commit string) string {
	return tag("apply-commit", field{"sha", commit})
}

// auditPublished reports whether the audit of this merge is already on the pull request;
// asked only of a run that found every plan applied by an earlier one.
func auditPublished(ctx context.Context, a Apply) (bool, error) {
	if !a.Already {
		return false, nil
	}
	gh := a.GitHub
	id, err := github.IdentityOf(ctx, gh.API, gh.Identity)
	if err != nil {
		return false, err
	}
	comments, err := gh.API.ListIssueComments(ctx, a.Repo, a.Run.PR)
	if err != nil {
		return false, fmt.Errorf("look for the audit an earlier run published: %w", err)
	}
	marker := AuditMarker(a.Run.Commit)
	for _, c := range Own(comments, "apply", a.Run.PR, id) {
		if strings.HasSuffix(strings.TrimRight(c.Body, "\n"), marker) {
			return true, nil
		}
	}
	return false, nil
}
