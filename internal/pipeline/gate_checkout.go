package pipeline

import (
	"context"
	"fmt"

	"github.com/tfgate/tfgate/internal/git"
)

// gateCheckout checks that the gate's checkout is the pull request's head, or GitHub's
// test merge of it (a merge whose second parent is the head): the projects the gate judges
// and the files whose owners must approve are what the checkout changes, and the plans,
// reviews and status are the head's. A checkout of an older commit (a re-run of an older
// workflow run, a gate step that finishes after a newer push was planned) would judge the
// head's plans by an older change: a project only the newer commit changes would go
// unjudged, its bundle unread. Not for a merge queue's commit, which the event names.
func (a *runFacts) gateCheckout(ctx context.Context, checkout git.Git) error {
	head, err := checkout.Head(ctx)
	if err != nil {
		return err
	}
	want := a.pr.HeadSHA
	if head == want {
		return nil
	}
	if second, err := checkout.Commit(ctx, head+"^2"); err == nil && second == want {
		return nil
	}
	return fmt.Errorf("the checkout %s is neither pull request #%d's head %s nor GitHub's test merge of it: the gate judges what the head changes; "+
		"run it on a checkout of the head (actions/checkout on a pull_request or pull_request_review event; re-run the newest workflow run, not an older one)",
		git.ShortSHA(head), a.pr.Number, git.ShortSHA(want))
}
