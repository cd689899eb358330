package pipeline

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tfgate/tfgate/internal/ci"
	"github.com/tfgate/tfgate/internal/github"

	"github.com/tfgate/tfgate/internal/report"
)

// The gate never leaves a verdict it did not publish looking current: what it could not
// update says so, or the status fails, and the run exits 1.

// publishVerdict sets tfgate/gate to the run's verdict and writes it into the plan comment
// (not for a merge queue's group: the comment is about the head's plan), within the
// publishing phase's time.
func (a *applier) publishVerdict(ctx context.Context, run report.Run, warn func(string)) error {
	ctx, phase := github.StartPublish(ctx, publishLimit(a.req.GitHub.Env))
	if err := a.gateStatus(ctx, run.Verdict); err != nil {
		return phase.End(err)
	}
	if a.queue == "" {
		if err := a.gateLine(ctx, run, warn); err != nil {
			return phase.End(a.staleGateLine(ctx, run.Verdict, err))
		}
	}
	return phase.End(nil)
}

// errorVerdict is the verdict of a gate that could not judge: any earlier one is void.
var errorVerdict = report.Verdict{State: "error", Description: "tfgate gate could not run: see the run's log; no earlier verdict holds"}

// publishGateError publishes that the gate could not run (err): the status tfgate/gate is
// an error, and the plan comment's gate line says so instead of an earlier verdict.
func (a *applier) publishGateError(ctx context.Context, run report.Run, err error, warn func(string)) error {
	v := errorVerdict
	errs := []error{err}
	if serr := a.gateStatus(ctx, &v); serr != nil {
		errs = append(errs, serr)
	}
	if a.queue == "" {
		run.Verdict = &v
		if lerr := a.gateLine(ctx, run, warn); lerr != nil {
			errs = append(errs, fmt.Errorf("%w: it may still show an earlier verdict", lerr))
		}
	}
	return errors.Join(errs...)
}

// staleGateLine handles a verdict v that is in the status but could not be written into the
// plan comment (lineErr), which still shows an earlier one: the status becomes an error
// that says so — branch protection must not pass on a verdict reviewers cannot see.
func (a *applier) staleGateLine(ctx context.Context, v *report.Verdict, lineErr error) error {
	st := report.Verdict{State: "error", Description: fmt.Sprintf("%s, but not written into the plan comment (it shows an earlier verdict): re-run tfgate gate", verdictWord(v.State))}
	if err := a.gateStatus(ctx, &st); err != nil {
		return errors.Join(lineErr, fmt.Errorf("the status still says %s: %w", v.State, err))
	}
	return lineErr
}

func verdictWord(state string) string {
	switch state {
	case "success":
		return "allowed"
	case "pending":
		return "pending"
	}
	return "refused"
}

// publishLimit is TFGATE_PUBLISH_TIMEOUT (validated when the client was made), 0 for the
// default.
func publishLimit(env ci.GitHub) time.Duration {
	_, d, _ := env.Timeouts()
	return d
}
