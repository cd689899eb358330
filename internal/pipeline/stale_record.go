package pipeline

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strconv"

	"github.com/tfgate/tfgate/internal/english"
	"github.com/tfgate/tfgate/internal/git"
	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/notify"
)

// Telling for every merge. GitHub cancels the waiting apply run of a merge when a third one
// arrives (the concurrency group), and a run may stop before its notify-stale step: the
// push's before..after would then never look at that merge, and the pull requests it made
// stale would merge untold. So notify-stale, on a push, tells for everything since the last
// run that told, as apply catches up the merges no run applied (apply_catchup.go):
//
//   - a run that told every related pull request sets tfgate/stale = success on the pushed
//     commit (failure when some could not be told: the next run tells them again);
//   - the next run walks the default branch back from the push's before to the newest commit
//     carrying such a record, and tells for the changes since that commit, naming the
//     merges in between.
//
// A record counts only when its creator is tfgate's identity and GitHub's own account of
// the run it links to (target_url, GET /actions/runs/{id}) says that run was the push of
// that very commit to the default branch and ran to its end (success or failure, not
// cancelled): a writer's branch workflow writes statuses as github-actions[bot] too, but
// cannot make GitHub record a push run of a default branch commit. A record that does not
// count is walked past: telling again is harmless, telling too little is what this is
// about. The walk is bounded (DefaultCatchUp commits): with no record within it, the run
// tells for the changes since the oldest commit it looked at, and warns.

// staleSince is where a push's telling starts.
type staleSince struct {
	base    string // tell for base..HEAD
	earlier []int  // the pull requests merged after base and before the push, oldest first
	record  bool   // the range follows the record: this run records what it told
}

// lastTold walks the default branch back from the push's before (ch.Branch) for the newest
// commit whose record counts (see above).
func lastTold(ctx context.Context, req StaleRequest, checkout git.Git, branch, before string) (staleSince, error) {
	gh := req.GitHub
	bound := DefaultCatchUp
	chain, err := checkout.History(ctx, before, bound)
	if err != nil {
		req.Warn(fmt.Sprintf("the commit before the push, %s, is not in this clone: notify-stale tells for this push only, not for earlier merges whose runs were cancelled; fetch the history (actions/checkout with fetch-depth: 0): %v", git.ShortSHA(before), err))
		return staleSince{base: before}, nil
	}
	// Who tfgate writes as, learnt once, when a record is found (GET /user: 403 under
	// GITHUB_TOKEN, which is then github-actions[bot]).
	var id *github.Identity
	whoAmI := func() (github.Identity, error) {
		if id == nil {
			i, err := github.IdentityOf(ctx, gh.API, gh.Identity)
			if err != nil {
				return i, err
			}
			id = &i
		}
		return *id, nil
	}
	repo := github.Repo{Owner: gh.Event.Owner, Name: gh.Event.Repo}
	var earlier []int // newest first
	for i, c := range chain {
		told, err := toldAt(ctx, gh.API, repo, whoAmI, branch, c)
		if err != nil { // this push is told all the same; the next run looks again
			req.Warn(fmt.Sprintf("notify-stale tells for this push only, not for earlier merges whose runs may have been cancelled: %v", err))
			return staleSince{base: before}, nil
		}
		if !told && i == len(chain)-1 && len(chain) < bound {
			if shallow, err := checkout.Shallow(ctx); err != nil || shallow {
				req.Warn(fmt.Sprintf("this clone's history ends at %s, shallow: notify-stale tells for this push only, not for earlier merges whose runs were cancelled; fetch the history (actions/checkout with fetch-depth: 0)", git.ShortSHA(c)))
				return staleSince{base: before}, nil
			}
		}
		if told || i == len(chain)-1 {
			if !told && len(chain) == bound {
				req.Warn(fmt.Sprintf("no commit among the last %d of %s before this push carries a %s record of a run that told: told for the changes since %s; older merges whose runs were cancelled are not looked at",
					bound, branch, notify.StatusStale, git.ShortSHA(c)))
			}
			// (At the first commit of the repository: every plan was made on it or later.)
			return staleSince{base: c, earlier: reversed(earlier), record: true}, nil
		}
		pulls, err := gh.API.ListCommitPulls(ctx, repo, c)
		if err != nil {
			return staleSince{}, fmt.Errorf("find the pull request merged as %s (no run told for it): %w", git.ShortSHA(c), err)
		}
		for _, p := range pulls {
			if p.Merged && p.MergeCommitSHA == c {
				earlier = append(earlier, p.Number)
			}
		}
	}
	return staleSince{base: before}, nil // an empty history: not reached
}

func reversed(ns []int) []int {
	out := make([]int, len(ns))
	for i, n := range ns {
		out[len(ns)-1-i] = n
	}
	return out
}

// toldAt reports whether commit sha carries a record that counts: the newest tfgate/stale
// by tfgate (whoAmI) is success, set by the push run of sha to branch.
func toldAt(ctx context.Context, api github.API, repo github.Repo, whoAmI func() (github.Identity, error), branch, sha string) (bool, error) {
	sts, err := api.ListStatuses(ctx, repo, sha)
	if err != nil {
		return false, fmt.Errorf("read the statuses of %s (looking for the last run that told the stale pull requests): %w", git.ShortSHA(sha), err)
	}
	for _, st := range sts { // newest first
		if st.Context != notify.StatusStale {
			continue
		}
		id, err := whoAmI()
		if err != nil {
			return false, err
		}
		if !id.Is(st.Creator) {
			continue
		}
		if st.State != github.StateSuccess {
			return false, nil
		}
		runID := runOf(st.TargetURL)
		if runID == 0 {
			return false, nil
		}
		run, err := api.GetWorkflowRun(ctx, repo, runID)
		if github.HTTPStatus(err) == http.StatusNotFound {
			return false, nil // no run GitHub knows of
		}
		if err != nil {
			return false, fmt.Errorf("read workflow run %d, which recorded that it told for %s: %w", runID, git.ShortSHA(sha), err)
		}
		return run.HeadSHA == sha && run.HeadBranch == branch && run.Event == "push" && run.Status == "completed" &&
			(run.Conclusion == "success" || run.Conclusion == "failure"), nil
	}
	return false, nil
}

var runURL = regexp.MustCompile(`/actions/runs/([0-9]{1,18})(?:/attempts/[0-9]+)?$`)

// runOf is the workflow run id of a run's URL (ci.GitHub.RunURL), 0 for anything else.
func runOf(u string) int64 {
	m := runURL.FindStringSubmatch(u)
	if m == nil {
		return 0
	}
	n, _ := strconv.ParseInt(m[1], 10, 64)
	return n
}

// recordTold sets tfgate/stale on the pushed commit: success when every related pull
// request was told (told = the error of telling them), failure when not.
func recordTold(ctx context.Context, gh *GitHubRun, res StaleResult, told error) error {
	st := github.Status{State: github.StateSuccess, Context: notify.StatusStale, TargetURL: gh.Env.RunURL(),
		Description: fmt.Sprintf("told %s of the changes since %s", english.Plural(len(res.Pulls), "stale pull request", "stale pull requests"), git.ShortSHA(res.Change.Since))}
	if told != nil {
		st.State, st.Description = github.StateFailure, "could not tell every stale pull request: the next push tells them again"
	}
	repo := github.Repo{Owner: gh.Event.Owner, Name: gh.Event.Repo}
	if _, err := gh.API.CreateStatus(ctx, repo, res.Change.Commit, st); err != nil {
		return fmt.Errorf("record what was told (status %s on %s): %w", notify.StatusStale, git.ShortSHA(res.Change.Commit), err)
	}
	return nil
}
