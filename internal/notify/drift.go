package notify

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/tfgate/tfgate/internal/ci"
	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/render"
	"github.com/tfgate/tfgate/internal/report"
)

// Drift is where a drift run is reported beyond stdout.
type Drift struct {
	API      github.API // nil: no issues and no job summary (--report none, or not in Actions)
	Env      ci.GitHub
	Identity string   // config github.identity; "" = find out
	Labels   []string // config drift.labels; nil = DriftLabels
	Version  string
	// Webhook is the URL of the run's webhook ("" = none). It is a secret: the caller has
	// added it to the masker, and nothing here puts it in a message.
	Webhook          string
	WebhookTransport http.RoundTripper // nil: a default transport
	WebhookRetry     time.Duration     // first backoff; 0 = the default
	Now              func() time.Time
	// Timings gives the projects' phases, for the job summary's timing table
	// (metrics.Recorder.Phases); nil: no table.
	Timings func() map[string][]report.Phase
}

// PublishDrift reports a finished drift run: the project issues first (so that what follows
// links them), then the job summary, then the webhook. Every part is attempted even when one
// fails; the run returned carries the issue links, and the error names what failed.
func PublishDrift(ctx context.Context, p Drift, run report.Run) (report.Run, error) {
	if p.Now == nil {
		p.Now = time.Now
	}
	var errs []string
	opts := render.MarkdownOptions{Version: p.Version, Commit: run.Commit, RunURL: p.Env.RunURL()}
	ctx, phase := github.StartPublish(ctx, publishLimit(p.Env))
	if p.API != nil {
		repo, err := github.ParseRepo(p.Env.Repository)
		if err == nil {
			run, err = PublishDriftIssues(ctx, DriftIssues{API: p.API, Repo: repo, Identity: p.Identity, Labels: p.Labels,
				Body: DriftBodyOptions{Now: p.Now(), Commit: run.Commit, RunURL: opts.RunURL, Version: p.Version}}, run)
		}
		if err != nil {
			errs = append(errs, "drift issues: "+err.Error())
		}
	}
	// The job summary is a file: written in Actions with or without a token.
	if p.Env.Actions && p.Env.StepSummary != "" {
		sopts := opts
		sopts.Timings = timings(p.Timings)
		if _, err := ci.AppendSummary(p.Env.StepSummary, render.StepSummary(run, sopts)); err != nil {
			errs = append(errs, "job summary: "+err.Error())
		}
	}
	if p.Webhook != "" {
		if err := PostWebhook(ctx, Webhook{URL: p.Webhook, Transport: p.WebhookTransport, Backoff: p.WebhookRetry},
			NewPayload(run, run.Commit, opts.RunURL)); err != nil {
			errs = append(errs, err.Error())
		}
	}
	if err := phase.End(nil); err != nil {
		errs = append(errs, err.Error())
	}
	if len(errs) > 0 {
		return run, fmt.Errorf("could not report the drift run (the report above is complete): %s", strings.Join(errs, "; "))
	}
	return run, nil
}
