package github

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// DefaultPublishTimeout bounds all of a run's publishing to GitHub (comment, statuses,
// audit, issues) when TFGATE_PUBLISH_TIMEOUT does not say otherwise. Each request is
// bounded too (Options.RequestTimeout, retries included), but a GitHub that stalls every
// request would otherwise hold a run for each of them in turn.
const DefaultPublishTimeout = 5 * time.Minute

// PublishPhase is one run's publishing, bounded as a whole.
type PublishPhase struct {
	limit  time.Duration
	cancel context.CancelFunc
	ctx    context.Context
}

// errPhaseOver is the cause of a publishing phase's end.
var errPhaseOver = errors.New("publishing phase over")

// StartPublish bounds what is published with the returned context to limit (0: the
// default). End it with End.
func StartPublish(ctx context.Context, limit time.Duration) (context.Context, *PublishPhase) {
	if limit <= 0 {
		limit = DefaultPublishTimeout
	}
	pctx, cancel := context.WithTimeoutCause(ctx, limit, errPhaseOver)
	return pctx, &PublishPhase{limit: limit, cancel: cancel, ctx: pctx}
}

// End releases the phase and returns err; when the phase ran out of time, err (or, for nil,
// an error of its own) says that publishing was stopped and after how long.
func (p *PublishPhase) End(err error) error {
	over := errors.Is(context.Cause(p.ctx), errPhaseOver)
	p.cancel()
	if !over {
		return err
	}
	note := fmt.Sprintf("publishing to GitHub was stopped after %s (TFGATE_PUBLISH_TIMEOUT): what is named above was not published", p.limit)
	if err == nil {
		return errors.New(note)
	}
	return fmt.Errorf("%w; %s", err, note)
}
