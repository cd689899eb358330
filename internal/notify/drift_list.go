package notify

import (
	"context"
	"slices"

	"github.com/tfgate/tfgate/internal/drift"
	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/report"
)

// listDriftIssues lists what PlanDriftIssues decides from, in as few pages as it can: the
// open drift issues (100 a page, by label; pull requests left out, as ListIssues does),
// and the closed ones only when a project needs an issue and has no open one — to reopen
// its closed record rather than open another. A steady night, whose every tracked project
// already has its open issue, costs the open issues' pages alone.
func listDriftIssues(ctx context.Context, t Tracker, run report.Run, id github.Identity) ([]github.Issue, error) {
	issues, err := t.ListState(ctx, "open")
	if err != nil || !needsClosed(run, issues, id) {
		return issues, err
	}
	closed, err := t.ListState(ctx, "closed")
	if err != nil {
		return nil, err
	}
	for _, is := range closed {
		// One reopened between the two listings is already in the first.
		if !slices.ContainsFunc(issues, func(o github.Issue) bool { return o.Number == is.Number }) {
			issues = append(issues, is)
		}
	}
	return issues, nil
}

// needsClosed: some project needs an issue (drift.Tracked) and has no open record.
func needsClosed(run report.Run, open []github.Issue, id github.Identity) bool {
	return slices.ContainsFunc(run.Projects, func(p report.Project) bool {
		return drift.Tracked(p.Status) && len(Records(open, DriftKind, p.Name, id)) == 0
	})
}
