package pipeline

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tfgate/tfgate/internal/git"
	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/notify"
	"github.com/tfgate/tfgate/internal/project"
	"github.com/tfgate/tfgate/internal/render"
	"github.com/tfgate/tfgate/internal/stage"
)

// A merge queue plans group 2 while the apply of what landed before it (group 1's push)
// may still run: a plan made then is made on state that apply is about to change, and apply
// refuses it after the merge. So a merge_group plan first waits — bounded by the lock
// timeout — until the apply of its base commit has finished: when the base commit changed
// a project the group plans, its tfgate/apply status must exist and not be pending. A wait
// that runs out fails the plan's check with the reason, and the queue takes the group again.

// QueueWaitError is a merge_group plan that gave up waiting for its base's apply.
type QueueWaitError struct {
	Base     string
	Projects []string
	Waited   time.Duration
	State    string // the base's tfgate/apply state when it gave up ("" = none yet)
}

func (e *QueueWaitError) Error() string {
	what := "no tfgate/apply status yet"
	if e.State != "" {
		what = "tfgate/apply still " + e.State
	}
	return fmt.Sprintf("the merge queue's base %s changed %s and its apply has not finished after %s (%s): planning now would plan on state that apply is about to change. The check fails so that the queue tries the group again; raise --lock-timeout to wait longer",
		git.ShortSHA(e.Base), strings.Join(e.Projects, ", "), e.Waited.Round(time.Second), what)
}

// RetryStatus is the description for the tfgate/plan status (notify.RetryStatus).
func (e *QueueWaitError) RetryStatus() string {
	return render.FitStatus(fmt.Sprintf("waited %s for the apply of base %s (%s): retry the group", e.Waited.Round(time.Second), git.ShortSHA(e.Base), strings.Join(e.Projects, ", ")))
}

// queuePoll is how often the base's statuses are read while waiting.
func queuePoll(timeout time.Duration) time.Duration {
	return min(10*time.Second, max(timeout/20, 100*time.Millisecond))
}

// waitQueueBase waits until the apply of base (the landed commit the group is planned on)
// has finished, when base itself changed one of the projects to plan. One API call per poll.
func waitQueueBase(ctx context.Context, req PlanRequest, base string, projects []project.Project) error {
	gh := req.GitHub
	if gh.API == nil || base == "" {
		return nil
	}
	checkout := git.Git{Dir: req.Root}
	parent, err := checkout.Commit(ctx, base+"^1")
	if err != nil {
		return nil // the first commit: nothing was applied before it
	}
	files, err := checkout.DiffFiles(ctx, parent, base)
	if err != nil {
		return err
	}
	top, err := git.TopLevel(ctx, req.Root)
	if err != nil {
		return err
	}
	prefix, err := stage.RootPrefix(top, req.Root)
	if err != nil {
		return err
	}
	var names []string
	for _, t := range project.ChangedWhy(projects, stage.RootRelative(prefix, files)) {
		names = append(names, t.Project.Name)
	}
	names = slices.Compact(names)
	if len(names) == 0 {
		return nil
	}
	timeout := req.LockTimeout
	if timeout <= 0 {
		timeout = stage.DefaultLockTimeout
	}
	repo := github.Repo{Owner: gh.Event.Owner, Name: gh.Event.Repo}
	start := time.Now()
	for warned := false; ; warned = true {
		sts, err := gh.API.ListStatuses(ctx, repo, base)
		if err != nil {
			return fmt.Errorf("read the apply status of the merge queue's base %s: %w", git.ShortSHA(base), err)
		}
		state := ""
		for _, st := range sts { // newest first
			if st.Context == notify.StatusApply {
				state = st.State
				break
			}
		}
		if state != "" && state != "pending" {
			req.Log.Info("merge queue base applied", "base", base, "state", state, "waited", time.Since(start))
			return nil
		}
		waited := time.Since(start)
		if waited >= timeout {
			return &QueueWaitError{Base: base, Projects: names, Waited: waited, State: state}
		}
		if !warned {
			req.Warn(fmt.Sprintf("the merge queue's base %s changed %s: waiting up to %s for its apply to finish before planning", git.ShortSHA(base), strings.Join(names, ", "), timeout))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(min(queuePoll(timeout), timeout-waited)):
		}
	}
}
