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
// the rules). Without a push (--pr): the commit before the merge (the merge commit's first
// parent; for a squash or rebase merge, beforePR), and the pull request's base too — the
// gate must hold under both.
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
	if _, err := checkout.Commit(ctx, head+"^2"); err != nil && found {
		if parent, err = a.beforePR(ctx, checkout, parent); err != nil {
			return nil, err
		}
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

// beforePR is the commit before the merged pull request's commits on the first-parent line
// of a merge commit that has one parent (a squash or a rebase merge), starting at that
// parent. A rebase merge's parent is the pull request's own replayed commit: it must
// neither set the rules nor hide what the pull request changed before it (a shared script
// that needs more approvals than the project changed last). So the line is walked back
// past every commit GitHub associates with the pull request, to its base or to a commit of
// another merged pull request. A commit GitHub ties to no merged pull request may be one
// of the pull request's own that GitHub did not map: it is an error, not a guess.
func (a *runFacts) beforePR(ctx context.Context, checkout git.Git, parent string) (string, error) {
	c := parent
	for range git.MaxChain {
		if c == a.pr.BaseSHA {
			return c, nil
		}
		pulls, err := a.gh.API.ListCommitPulls(ctx, a.repo, c)
		if err != nil {
			return "", fmt.Errorf("find the pull request of commit %s, before pull request #%d's merge: %w", git.ShortSHA(c), a.pr.Number, err)
		}
		own, other := false, false
		for _, pr := range pulls {
			own = own || pr.Merged && pr.Number == a.pr.Number
			other = other || pr.Merged && pr.Number != a.pr.Number
		}
		switch {
		case own:
			if c, err = checkout.Commit(ctx, c+"^1"); err != nil {
				return "", fmt.Errorf("pull request #%d's commits reach the start of this clone: apply compares the merge with the branch before them; fetch the history (actions/checkout with fetch-depth: 0)", a.pr.Number)
			}
		case other:
			return c, nil
		default:
			return "", fmt.Errorf("commit %s, below pull request #%d's merge commit %s, belongs to no merged pull request on GitHub: it may be one of #%d's own commits (a rebase merge whose commits GitHub did not associate with it), which must not set the rules or hide what it changed; apply the merge from its push event, whose \"before\" is the branch before it",
				git.ShortSHA(c), a.pr.Number, git.ShortSHA(a.pr.MergeCommitSHA), a.pr.Number)
		}
	}
	return "", fmt.Errorf("pull request #%d's merge has more than %d commits on the branch's first-parent line: apply it from its push event", a.pr.Number, git.MaxChain)
}
