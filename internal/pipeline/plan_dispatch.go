package pipeline

import (
	"context"
	"fmt"

	"github.com/tfgate/tfgate/internal/ci"
	"github.com/tfgate/tfgate/internal/git"
	"github.com/tfgate/tfgate/internal/github"
)

// dispatchedPull turns a workflow_dispatch with the input pr (tfgate notify-stale's
// re-plan of a pull request whose plan went stale) into the event of that pull request: its
// head is what reviewers approve; the checkout must be GitHub's test merge of it
// (refs/pull/N/merge), whose first parent — the default branch it merges into now — is the
// base, so that the plan is made on the new main and a merge right after applies cleanly.
// With the input base (the main commit that made the plan stale), a test merge older than
// it is refused: GitHub recomputes refs/pull/N/merge a little after main moves.
func dispatchedPull(ctx context.Context, gh *GitHubRun, root string) (ci.Event, error) {
	ev := gh.Event
	n := ev.PRNumber
	if gh.API == nil {
		return ev, fmt.Errorf("a workflow_dispatch re-plan of pull request #%d reads it on GitHub: run it with GITHUB_TOKEN (--publish auto or github)", n)
	}
	repo := github.Repo{Owner: ev.Owner, Name: ev.Repo}
	pr, err := gh.API.GetPull(ctx, repo, n)
	if err != nil {
		return ev, fmt.Errorf("read pull request #%d to re-plan it: %w", n, err)
	}
	switch {
	case pr.State != "open":
		return ev, fmt.Errorf("pull request #%d is %s: there is nothing to re-plan", n, pr.State)
	case pr.Fork:
		// workflow_dispatch runs with the repository's secrets, as pull_request_target does.
		return ev, fmt.Errorf("refusing to re-plan pull request #%d from the fork %s under workflow_dispatch: the workflow's secrets would reach code from outside the repository; push to it (its own pull_request run plans it without secrets)", n, pr.HeadRepo)
	}
	checkout := git.Git{Dir: root}
	head, err := checkout.Head(ctx)
	if err != nil {
		return ev, err
	}
	base := ""
	if second, err := checkout.Commit(ctx, head+"^2"); err == nil && second == pr.HeadSHA {
		if base, err = checkout.Commit(ctx, head+"^1"); err != nil {
			return ev, err
		}
	} else if head != pr.HeadSHA {
		return ev, fmt.Errorf("the checkout %s is neither pull request #%d's head %s nor GitHub's test merge of it: check it out with actions/checkout's ref: refs/pull/%d/merge",
			git.ShortSHA(head), n, git.ShortSHA(pr.HeadSHA), n)
	} else {
		base = pr.BaseSHA // the head itself: compared with the base GitHub reports
	}
	if ev.DispatchBase != "" {
		ok, err := checkout.IsAncestor(ctx, ev.DispatchBase, base)
		if err != nil {
			return ev, fmt.Errorf("re-plan of #%d on the input base %s: %w (check out with fetch-depth: 0)", n, git.ShortSHA(ev.DispatchBase), err)
		}
		if !ok {
			return ev, fmt.Errorf("the checkout of pull request #%d is on %s, older than the default branch's %s it is to be planned on: GitHub had not yet updated its test merge (refs/pull/%d/merge); run this workflow again in a minute",
				n, git.ShortSHA(base), git.ShortSHA(ev.DispatchBase), n)
		}
	}
	labels, err := gh.API.ListIssueLabels(ctx, repo, n)
	if err != nil {
		return ev, fmt.Errorf("read the labels of #%d: %w", n, err)
	}
	ev.Labels = ""
	for _, l := range labels {
		ev.Labels += l + "\n"
	}
	ev.HeadSHA, ev.HeadRef, ev.HeadRepo, ev.Fork = pr.HeadSHA, pr.HeadRef, pr.HeadRepo, false
	ev.BaseSHA, ev.BaseRef, ev.Author = base, pr.BaseRef, pr.Author.Login
	return ev, nil
}
