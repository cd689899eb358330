package pipeline

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/english"
	"github.com/tfgate/tfgate/internal/git"
	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/notify"
	"github.com/tfgate/tfgate/internal/report"
)

// Losing no merge. GitHub keeps at most one run waiting per concurrency group, so a third
// merge in quick succession cancels the waiting run of the second; a run may also fail
// before it applies anything, or never start. So an apply run on a push first looks back
// along the default branch for the last merge tfgate handled — a commit with a
// tfgate/apply status of success or failure that tfgate itself set — and applies every
// pull request's merge after it, oldest first, each exactly as its own run would have (its
// own reviewed bundles, verified against its own merge commit, under the rules before it),
// then the pushed commit. Each caught-up merge gets its own audit (comment, status, audit
// log, job summary). A merge whose run found nothing to apply, or applied it (a cancelled
// run that got that far), comes out as such: its plans are recognised in the state
// (apply_applied.go) and nothing is applied twice.
//
// The record is the statuses, not a file tfgate keeps: they are on the commits, set by the
// same token, and a status anyone else set does not count. "error" (tfgate could not run)
// and "pending" do not count either: that merge is caught up again. The walk is bounded: a
// history of more than CatchUp commits without tfgate's status is refused — tfgate cannot
// tell which of them were applied — with what to do.

// DefaultCatchUp is how many commits of the default branch an apply run looks back for the
// last one tfgate applied.
const DefaultCatchUp = 20

// earlierMerge is a merge on the default branch that no tfgate run handled.
type earlierMerge struct {
	commit string
	base   string // the commit before it on the default branch: what it is compared with
	pr     int
}

// catchUp applies the merges before the pushed one that no run handled (see above), oldest
// first, each through its own run, and comes back to the pushed commit. Their runs are in
// a.earlier. An error stops this run before it applies anything of its own: the bound is
// exceeded, or an earlier merge could not run at all (the next run retries it first, so the
// order holds).
func (a *review) catchUp(ctx context.Context) error {
	req := a.req
	gh := req.GitHub
	if req.CatchUp <= 0 || req.DryRun || req.PR > 0 || len(req.Names) > 0 || gh == nil || gh.API == nil ||
		gh.Event.Name != "push" || gh.Event.BaseSHA == "" {
		return nil
	}
	a.repo = github.Repo{Owner: gh.Event.Owner, Name: gh.Event.Repo}
	checkout := git.Git{Dir: req.Root}
	head, err := checkout.Head(ctx)
	if err != nil {
		return err
	}
	a.run.Commit = head // a refusal is on record on the pushed commit
	pending, err := a.unapplied(ctx, checkout)
	if err != nil || len(pending) == 0 {
		return err
	}
	here, err := checkout.Where(ctx)
	if err != nil {
		return err
	}
	if dirty, err := checkout.Uncommitted(ctx); err != nil {
		return err
	} else if len(dirty) > 0 {
		return fmt.Errorf("the working tree has uncommitted changes (%s): apply checks out the earlier merges it catches up and verifies each against its commit exactly; check out a clean commit", english.ClipList(dirty, 3))
	}
	var stop error
	for _, m := range pending {
		run, err := a.applyEarlier(ctx, checkout, m)
		if run.Commit == "" {
			run.Kind, run.Commit, run.PR = report.KindApply, m.commit, m.pr
		}
		a.earlier = append(a.earlier, earlierRun{run: run, err: err})
		if req.CaughtUp != nil {
			req.CaughtUp(run)
		}
		if err != nil && (run.Projects == nil || ctx.Err() != nil) {
			stop = fmt.Errorf("the earlier merge %s (#%d), which no run applied, could not be applied: %w; this merge waits for it (merges apply in order): re-run this workflow once that is fixed", git.ShortSHA(m.commit), m.pr, err)
			break
		}
	}
	if err := checkout.Return(context.WithoutCancel(ctx), here); err != nil {
		return errors.Join(stop, err)
	}
	return stop
}

// applyEarlier applies one earlier merge as the run of its own push would have: checked
// out, with its own configuration.
func (a *review) applyEarlier(ctx context.Context, checkout git.Git, m earlierMerge) (report.Run, error) {
	req := a.req
	if err := checkout.Checkout(ctx, m.commit); err != nil {
		return report.Run{}, err
	}
	explicit := req.ConfigFile != "" && req.ConfigFile != config.FileName
	cfg, err := config.Load(ctx, req.Root, req.ConfigFile, explicit)
	if err != nil {
		return report.Run{}, fmt.Errorf("read the configuration of %s: %w", git.ShortSHA(m.commit), err)
	}
	gh := *req.GitHub
	gh.Event.BaseSHA, gh.Event.HeadSHA = m.base, m.commit
	if a.identity != "" {
		gh.Identity = a.identity // learnt once per run
	}
	sub := req
	sub.Config, sub.GitHub, sub.CatchUp, sub.CaughtUp = cfg, &gh, 0, nil
	return RunApply(ctx, sub)
}

// unapplied walks the default branch back from the commit before the push to the last
// commit tfgate handled, and returns the pull requests' merges in between, oldest first
// (unappliedFrom).
func (a *review) unapplied(ctx context.Context, checkout git.Git) ([]earlierMerge, error) {
	req := a.req
	id, err := a.whoAmI(ctx)
	if err != nil {
		return nil, err
	}
	from := req.GitHub.Event.BaseSHA
	found, chain, err := a.unappliedFrom(ctx, checkout, id, from, req.CatchUp)
	if err == nil && chain != nil {
		return nil, fmt.Errorf("no commit among the last %d of the default branch before this push (%s back to %s) has a tfgate/apply status of success or failure set by %s: tfgate cannot tell which of their merges were applied, so it applies none, this one included. "+
			"Apply the ones that were not with `tfgate apply --pr N` (workflow_dispatch), then re-run this one with --catch-up=0 — or, if tfgate is new to this repository and nothing is missing, re-run this one with --catch-up=0: its status becomes the starting point; --catch-up N looks further back",
			req.CatchUp, git.ShortSHA(chain[0]), git.ShortSHA(chain[req.CatchUp-1]), id.Login)
	}
	return found, err
}

// unappliedFrom walks the default branch back from commit from (included) to the last
// commit tfgate (id) handled, and returns the pull requests' merges in between, oldest
// first: what no run applied. Commits that are no pull request's merge (a direct push, the
// first commit) are passed over: a direct push is never applied, its own run refuses it.
// When none of bound commits was handled, tooFar is the chain looked at (tfgate cannot
// tell which were applied) and found is nil. Apply's catch-up and a plan's look at what it
// is planned on (plan_unapplied.go) are this one walk.
func (a *runFacts) unappliedFrom(ctx context.Context, checkout git.Git, id github.Identity, from string, bound int) (found []earlierMerge, tooFar []string, err error) {
	chain, err := checkout.History(ctx, from, bound+1)
	if err != nil {
		return nil, nil, fmt.Errorf("the commit %s is not in this clone: tfgate looks back from it for merges no run applied; fetch the history (actions/checkout with fetch-depth: 0): %w", git.ShortSHA(from), err)
	}
	for i, c := range chain {
		if i == bound {
			return nil, chain, nil
		}
		handled, err := a.handled(ctx, id, c)
		if err != nil {
			return nil, nil, err
		}
		if handled {
			if n := len(found); n > 0 && found[n-1].base == "" {
				found[n-1].base = c
			}
			break
		}
		pulls, err := a.gh.API.ListCommitPulls(ctx, a.repo, c)
		if err != nil {
			return nil, nil, fmt.Errorf("find the pull request of commit %s (looking for merges no run applied): %w", git.ShortSHA(c), err)
		}
		merge, within := 0, false
		for _, pr := range pulls {
			if pr.Merged && pr.MergeCommitSHA == c {
				merge = pr.Number
			}
			if n := len(found); n > 0 && found[n-1].base == "" && pr.Number == found[n-1].pr {
				within = true // a rebase merge's earlier commit: part of that merge
			}
		}
		if within && merge == 0 {
			continue
		}
		if n := len(found); n > 0 && found[n-1].base == "" {
			found[n-1].base = c
		}
		if merge != 0 {
			found = append(found, earlierMerge{commit: c, pr: merge})
		}
	}
	if n := len(found); n > 0 && found[n-1].base == "" {
		// The history ends with it: the first commit of the repository is no merge, and a
		// shallow clone was refused above.
		parent, err := checkout.Commit(ctx, found[n-1].commit+"^1")
		if err != nil {
			return nil, nil, fmt.Errorf("commit %s has no parent in this clone: fetch the history (actions/checkout with fetch-depth: 0)", git.ShortSHA(found[n-1].commit))
		}
		found[n-1].base = parent
	}
	slices.Reverse(found)
	return found, nil, nil
}

// handled reports whether a tfgate run set tfgate/apply on commit sha to a verdict.
func (a *runFacts) handled(ctx context.Context, id github.Identity, sha string) (bool, error) {
	sts, err := a.gh.API.ListStatuses(ctx, a.repo, sha)
	if err != nil {
		return false, fmt.Errorf("read the statuses of %s (looking for the last merge tfgate applied): %w", git.ShortSHA(sha), err)
	}
	for _, st := range sts { // newest first
		if st.Context == notify.StatusApply && id.Is(st.Creator) {
			return st.State == github.StateSuccess || st.State == github.StateFailure, nil
		}
	}
	return false, nil
}

// earlierRun is a caught-up merge's run and how it ended.
type earlierRun struct {
	run report.Run
	err error
}

// noteEarlier tells the pushed commit's run which earlier merges it caught up.
func (a *review) noteEarlier() {
	if len(a.earlier) == 0 {
		return
	}
	items := make([]string, len(a.earlier))
	for i, e := range a.earlier {
		items[i] = fmt.Sprintf("%s (#%d): %s", git.ShortSHA(e.run.Commit), e.run.PR, earlierOutcome(e))
	}
	a.run.Notes = append([]string{fmt.Sprintf("Caught up first, in merge order, %s that no run had applied: %s.",
		english.Plural(len(a.earlier), "earlier merge", "earlier merges"), strings.Join(items, "; "))}, a.run.Notes...)
}

func earlierOutcome(e earlierRun) string {
	r := e.run
	switch {
	case r.Projects == nil && e.err != nil:
		return "could not run"
	case len(r.Projects) == 0:
		return "nothing to apply"
	}
	var parts []string
	for _, st := range []report.Status{report.StatusApplied, report.StatusRefused, report.StatusFailed, report.StatusInterrupted, report.StatusNotStarted} {
		var names []string
		for _, p := range r.Projects {
			if p.Status == st {
				names = append(names, p.Name)
			}
		}
		if len(names) > 0 {
			parts = append(parts, strings.ReplaceAll(string(st), "_", " ")+" "+strings.Join(names, ", "))
		}
	}
	return strings.Join(parts, ", ")
}

// earlierErr is what the caught-up merges add to the run's error: a failure (exit 1;
// ErrUnfinished when it is only projects that did not finish) or refusals (exit 4,
// ErrGateRefused), combined with the pushed commit's own so that a failure anywhere wins.
func (a *review) earlierErr(head error) error {
	var failed, refused []string
	stopped := head != nil && !errors.Is(head, ErrGateRefused) // else only projects did not finish
	for _, e := range a.earlier {
		label := fmt.Sprintf("the earlier merge %s (#%d)", git.ShortSHA(e.run.Commit), e.run.PR)
		switch {
		case e.err != nil && !errors.Is(e.err, ErrGateRefused):
			stopped = true
			failed = append(failed, label+": "+e.err.Error())
		case len(e.run.Unfinished()) > 0:
			failed = append(failed, label+": "+earlierOutcome(e))
		case e.run.Count(report.StatusRefused) > 0:
			refused = append(refused, label+": "+earlierOutcome(e))
		}
	}
	switch {
	case len(failed) > 0:
		msg := strings.Join(failed, "; ")
		if head != nil {
			msg = head.Error() + "; " + msg
		}
		if !stopped {
			return unfinishedErr(msg)
		}
		return errors.New(msg)
	case len(refused) > 0:
		err := fmt.Errorf("%w in %s", ErrGateRefused, strings.Join(refused, "; "))
		if head == nil {
			return err
		}
		if errors.Is(head, ErrGateRefused) {
			return errors.Join(head, err)
		}
		return errors.New(head.Error() + "; " + err.Error()) // a failure: exit 1
	}
	return head
}
