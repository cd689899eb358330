package pipeline

import (
	"context"
	"fmt"

	"github.com/tfgate/tfgate/internal/git"
	"github.com/tfgate/tfgate/internal/github"
)

// Finding what a merge applies: its pull request, and the commits the rules come from.

// findPR is the merged pull request the commit applies: --pr, or the one GitHub associates
// with the commit whose merge commit it is. found is false when there is none (pr may
// then name an unmerged one, for the message).
func (a *review) findPR(ctx context.Context, head string) (github.PullRequest, bool, error) {
	api := a.gh.API
	if a.req.PR > 0 {
		pr, err := api.GetPull(ctx, a.repo, a.req.PR)
		if err != nil {
			return pr, false, fmt.Errorf("read pull request #%d: %w", a.req.PR, err)
		}
		return pr, pr.Merged, nil
	}
	pulls, err := api.ListCommitPulls(ctx, a.repo, head)
	if err != nil {
		return github.PullRequest{}, false, fmt.Errorf("find the pull request of commit %s: %w", git.ShortSHA(head), err)
	}
	var unmerged github.PullRequest
	for _, pr := range pulls {
		if pr.Merged && pr.MergeCommitSHA == head {
			return pr, true, nil
		}
		if !pr.Merged {
			unmerged = pr
		}
	}
	return unmerged, false, nil
}

// baseRevs are the commits the rules come from, the first also what the merge's changes are
// compared with. On a push: the branch before it (the push's "before": with a rebase merge
// every commit of the pull request lies between it and the head, so none of them can set
// the rules). Without a push (--pr): the merge's first parent, and the pull request's base
// too — the gate must hold under both.
func (a *runFacts) baseRevs(ctx context.Context, checkout git.Git, head string, found bool) ([]string, error) {
	ev := a.gh.Event
	if ev.Name == "push" && ev.BaseSHA != "" {
		sha, err := checkout.Commit(ctx, ev.BaseSHA)
		if err != nil {
			return nil, fmt.Errorf("the commit before the push, %s, is not in this clone: apply compares the push with it; fetch the history (actions/checkout with fetch-depth: 0): %w", git.ShortSHA(ev.BaseSHA), err)
		}
		return []string{sha}, nil
	}
	parent, err := checkout.Commit(ctx, head+"^1")
	if err != nil {
		return nil, fmt.Errorf("commit %s has no parent in this clone: apply compares the merge with the branch before it; fetch more history (actions/checkout with fetch-depth: 0)", git.ShortSHA(head))
	}
	revs := []string{parent}
	if found && a.pr.BaseSHA != "" && a.pr.BaseSHA != parent {
		sha, err := checkout.Commit(ctx, a.pr.BaseSHA)
		if err != nil {
			return nil, fmt.Errorf("pull request #%d's base %s is not in this clone: fetch the history (actions/checkout with fetch-depth: 0): %w", a.pr.Number, git.ShortSHA(a.pr.BaseSHA), err)
		}
		revs = append(revs, sha)
	}
	return revs, nil
}
