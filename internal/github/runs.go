package github

import (
	"context"
	"fmt"
)

// WorkflowRun is GitHub's own account of an Actions workflow run: what started it, for
// which commit of which branch, and how it ended.
type WorkflowRun struct {
	ID         int64
	HeadSHA    string
	HeadBranch string
	Event      string // push, pull_request, workflow_dispatch, …
	Status     string // queued, in_progress, completed, …
	Conclusion string // success, failure, cancelled, … ("" until completed)
}

// GetWorkflowRun is GET /repos/{owner}/{repo}/actions/runs/{run_id}.
func (c *Client) GetWorkflowRun(ctx context.Context, repo Repo, id int64) (WorkflowRun, error) {
	r, _, err := c.gh.Actions.GetWorkflowRunByID(ctx, repo.Owner, repo.Name, id)
	if err != nil {
		return WorkflowRun{}, wrap(fmt.Sprintf("get workflow run %d of %s", id, repo), err)
	}
	return WorkflowRun{ID: r.GetID(), HeadSHA: r.GetHeadSHA(), HeadBranch: r.GetHeadBranch(), Event: r.GetEvent(),
		Status: r.GetStatus(), Conclusion: r.GetConclusion()}, nil
}
