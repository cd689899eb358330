package notify

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/report"
)

// The gate never leaves a verdict it did not publish looking current: what it could not
// update says so, or the status fails, and the run exits 1.

// ErrorVerdict is the verdict of a gate that could not judge: any earlier one is void.
var ErrorVerdict = report.Verdict{State: report.GateError, Description: "tfgate gate could not run: see the run's log; no earlier verdict holds"}

// Publish sets tfgate/gate to the run's verdict and, when line is set (not for a merge
// queue's group: the comment is about the head's plan), writes it into the plan comment,
// within the publishing phase's time. A verdict that reached the status but not the comment
// (which still shows an earlier one) turns the status into an error saying so: branch
// protection must not pass on a verdict reviewers cannot see.
func (g *Gate) Publish(ctx context.Context, run report.Run, line bool, warn func(string)) error {
	ctx, phase := github.StartPublish(ctx, publishLimit(g.GitHub.Env))
	if err := g.Status(ctx, run.Verdict); err != nil {
		return phase.End(err)
	}
	if !line {
		return phase.End(nil)
	}
	lerr := g.Line(ctx, run, warn)
	if lerr == nil {
		return phase.End(nil)
	}
	st := report.Verdict{State: report.GateError, Description: fmt.Sprintf("%s, but not written into the plan comment (it shows an earlier verdict): re-run tfgate gate", verdictWord(run.Verdict.State))}
	// The correction goes out even when the phase's end is what stopped the line: a status
	// left at the verdict would let branch protection pass on it. It gets time of its own.
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), correctionTimeout)
	defer cancel()
	if err := g.Status(cctx, &st); err != nil {
		lerr = errors.Join(lerr, fmt.Errorf("the status still says %s: %w", run.Verdict.State, err))
	}
	return phase.End(lerr)
}

// PublishError publishes that the gate could not run (cause, returned with whatever else
// failed): tfgate/gate is an error, and with line the plan comment's gate line says so
// instead of an earlier verdict.
func (g *Gate) PublishError(ctx context.Context, run report.Run, cause error, line bool, warn func(string)) error {
	ctx, phase := github.StartPublish(ctx, publishLimit(g.GitHub.Env))
	v := ErrorVerdict
	errs := []error{cause}
	if err := g.Status(ctx, &v); err != nil {
		errs = append(errs, err)
	}
	if line {
		run.Verdict = &v
		if err := g.Line(ctx, run, warn); err != nil {
			errs = append(errs, fmt.Errorf("%w: it may still show an earlier verdict", err))
		}
	}
	return phase.End(errors.Join(errs...))
}

// correctionTimeout bounds the status that takes back a verdict the comment does not show,
// sent after the publishing phase may have ended.
const correctionTimeout = 30 * time.Second

func verdictWord(state report.GateState) string {
	switch state {
	case report.GateAllowed:
		return "allowed"
	case report.GatePending:
		return "pending"
	}
	return "refused"
}
