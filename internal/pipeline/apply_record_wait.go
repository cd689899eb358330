package pipeline

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tfgate/tfgate/internal/stage"
	"github.com/tfgate/tfgate/internal/terraform"
)

// Another apply's record in the state backend is either an apply running now (a re-run
// racing this one) or one that was cut off. The running apply holds the state lock while
// terraform applies, and has its record but not the lock for a moment before (selecting its
// workspace, starting terraform) and after (saving, deleting the record). So the wait
// follows the lock, not the clock alone: a record is taken for a left-over one only once it
// has outlived a settle window with the lock free, the window starting again whenever the
// lock was found held, and lasting at least three times what one look at the lock took
// here — on a loaded machine every terraform step of the other apply is slow too.

// recordSettle is the shortest settle window: how long an apply keeps finding a record,
// the state lock free, before it takes it for one left by an apply that was cut off.
var recordSettle = 10 * time.Second

// recordWait is an apply's wait for the records it found to go.
type recordWait struct {
	since time.Time     // when the window started: first seen, or the lock last found held
	span  time.Duration // the window: recordSettle, or 3 × the slowest look at the lock
	// locked is when `workspace new` first found the backend locked by another run.
	locked time.Time
}

// creating reports whether `workspace new` failed (err) because another run held the
// backend's lock — the pg backend takes one while it creates any workspace ("Already
// locked for workspace creation"): two applies making their records at the same moment,
// which a loaded machine makes likelier. The caller then looks again, up to the apply's
// lock timeout (recordSettle when there is none), as terraform waits for a state lock.
func (w *recordWait) creating(r *stage.ProjectRun, err error) bool {
	var ce *terraform.CommandError
	if !errors.As(err, &ce) {
		return false
	}
	msg := strings.ToLower(ce.Stderr + ce.Error())
	if !terraform.IsLocked(err) && !strings.Contains(msg, "failed to lock state") && !strings.Contains(msg, "already locked") {
		return false
	}
	now := r.Opts.Now()
	if w.locked.IsZero() {
		w.locked = now
		r.Opts.Log.Info("the state backend is locked for workspace creation by another run; apply looks again every second",
			"project", r.Project.Name)
	}
	bound := r.LockTimeout
	if bound <= 0 {
		bound = recordSettle
	}
	return now.Sub(w.locked) <= bound
}

// listRecords lists the apply records of workspace ws in the backend.
func listRecords(ctx context.Context, r *stage.ProjectRun, ws string) ([]string, error) {
	list, _, err := r.TF.Workspaces(ctx)
	if err != nil {
		return nil, err
	}
	var found []string
	for _, w := range list {
		if _, ok := recordOf(w, ws); ok {
			found = append(found, w)
		}
	}
	return found, nil
}

// pause is the second between two looks at the records.
func pause(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(time.Second):
		return nil
	}
}

// leftOver waits for the state lock and reports whether the records found have outlived
// the settle window.
func (w *recordWait) leftOver(ctx context.Context, r *stage.ProjectRun) (bool, error) {
	if w.since.IsZero() {
		w.since, w.span = r.Opts.Now(), recordSettle
	} else if r.Opts.Now().Sub(w.since) > w.span {
		return true, nil
	}
	held, look, err := waitStateLock(ctx, r)
	if err != nil {
		return false, err
	}
	w.span = max(w.span, 3*look)
	if held {
		w.since = r.Opts.Now() // the other apply was at work: its record may stay a while yet
	}
	return false, nil
}

// waitStateLock waits until the state lock is free, with a plan (read-only; it takes the
// lock for its duration): first one that fails at once when the lock is held, to learn
// whether it was (held), then, when it was, one under the apply's lock timeout. A plan that
// fails for another reason says nothing about the lock: the caller looks at the records
// again either way. look is how long the first plan took: how slow terraform is here now.
func waitStateLock(ctx context.Context, r *stage.ProjectRun) (held bool, look time.Duration, err error) {
	r.Phase("queued") // shown as waiting
	defer r.Phase("workspace")
	start := r.Opts.Now()
	_, err = r.TF.Plan(ctx, terraform.PlanOptions{VarFiles: r.Project.VarFiles})
	look = r.Opts.Now().Sub(start)
	if !terraform.IsLocked(err) {
		if ctx.Err() != nil {
			return false, look, err
		}
		return false, look, nil
	}
	_, err = r.TF.Plan(ctx, terraform.PlanOptions{VarFiles: r.Project.VarFiles, LockTimeout: r.LockTimeout})
	if terraform.IsLocked(err) {
		return true, look, errors.Join(fmt.Errorf("the state is locked by another run (waited %s) and holds tfgate's record of an apply of it: an apply is running, or one was cut off holding the lock. Nothing was applied; once no apply runs, re-run this one (it then checks the record again)", r.LockTimeout), err)
	}
	if ctx.Err() != nil {
		return true, look, err
	}
	return true, look, nil
}
