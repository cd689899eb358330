package github

import (
	"context"
	"fmt"
	"time"

	gh "github.com/google/go-github/v60/github"
)

// CommitStatus is a status as GitHub lists it: who set it and when, besides what it says.
type CommitStatus struct {
	Status
	Creator   User
	CreatedAt time.Time
}

// ListStatuses lists the statuses of commit sha, newest first (GET
// /repos/{owner}/{repo}/commits/{ref}/statuses), every page.
func (c *Client) ListStatuses(ctx context.Context, repo Repo, sha string) ([]CommitStatus, error) {
	var out []CommitStatus
	err := paginate(func(lo gh.ListOptions) (*gh.Response, error) {
		sts, resp, err := c.gh.Repositories.ListStatuses(ctx, repo.Owner, repo.Name, sha, &lo)
		for _, s := range sts {
			out = append(out, CommitStatus{
				Status:    Status{State: s.GetState(), Context: s.GetContext(), Description: s.GetDescription(), TargetURL: s.GetTargetURL()},
				Creator:   user(s.Creator),
				CreatedAt: s.GetCreatedAt().Time,
			})
		}
		return resp, err
	})
	return out, wrap(fmt.Sprintf("list the statuses of %s@%s", repo, sha), err)
}
