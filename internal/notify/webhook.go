package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/tfgate/tfgate/internal/drift"
	"github.com/tfgate/tfgate/internal/english"
	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/plan"
	"github.com/tfgate/tfgate/internal/report"
)

// Payload is the one JSON document a drift run POSTs to its webhook. Text makes it a Slack
// (and Mattermost, Teams workflow) incoming-webhook message as it is; the rest is for
// machines. It holds statuses, counts, addresses and links, never attribute values.
type Payload struct {
	Text     string           `json:"text"`
	Kind     report.Kind      `json:"kind"` // "drift"
	Commit   string           `json:"commit,omitempty"`
	RunURL   string           `json:"run_url,omitempty"`
	Counts   map[string]int   `json:"counts"` // projects by status: drifted, pending, in_sync, failed…
	Projects []PayloadProject `json:"projects"`
}

// PayloadProject is one project's line of the payload.
type PayloadProject struct {
	Name      string        `json:"name"`
	Workspace string        `json:"workspace"`
	Status    report.Status `json:"status"`
	Drifted   []string      `json:"drifted"` // addresses changed outside Terraform
	// FailedChecks are the addresses of the checks that failed (check.NAME, a resource's
	// or output's condition): reported apart from drift, whatever the status.
	FailedChecks []string      `json:"failed_checks"`
	Summary      *plan.Summary `json:"summary"` // what applying the code would do; null without a plan
	Issue        string        `json:"issue,omitempty"`
	Error        string        `json:"error,omitempty"` // first line of the error, masked already
}

// NewPayload builds the webhook document of a run.
func NewPayload(run report.Run, commit, runURL string) Payload {
	pl := Payload{Kind: report.KindDrift, Commit: commit, RunURL: runURL, Counts: map[string]int{}, Projects: []PayloadProject{}}
	var lines []string
	for _, p := range run.Projects {
		pp := payloadProject(p)
		pl.Counts[string(p.Status)]++
		pl.Projects = append(pl.Projects, pp)
		if drift.Tracked(p.Status) {
			l := fmt.Sprintf("• %s: %s", p.Name, word(p.Status))
			var what []string
			if n := len(pp.Drifted); n > 0 {
				what = append(what, english.Plural(n, "resource", "resources"))
			}
			if n := len(pp.FailedChecks); n > 0 {
				what = append(what, english.Plural(n, "check", "checks")+" failed")
			}
			if len(what) > 0 {
				l += " (" + strings.Join(what, "; ") + ")"
			}
			if p.Issue != "" {
				l += " " + p.Issue
			}
			lines = append(lines, l)
		}
	}
	head := fmt.Sprintf("tfgate drift: %s checked", english.Plural(len(run.Projects), "project", "projects"))
	var parts []string
	for _, st := range []report.Status{report.StatusDrifted, report.StatusPending, report.StatusCheckFailed, report.StatusFailed, report.StatusInSync} {
		if n := pl.Counts[string(st)]; n > 0 {
			w := strings.ReplaceAll(string(st), "_", " ")
			if st == report.StatusFailed {
				w = "error"
			}
			parts = append(parts, fmt.Sprintf("%d %s", n, w))
		}
	}
	if len(parts) > 0 {
		head += ": " + strings.Join(parts, ", ")
	}
	if runURL != "" {
		head += " — " + runURL
	}
	pl.Text = strings.Join(append([]string{head}, lines...), "\n")
	return pl
}

// payloadProject is one project's line of the payload: its failed checks whatever its
// status (a failed plan's failed conditions too), its drift and summary when it was checked.
func payloadProject(p report.Project) PayloadProject {
	pp := PayloadProject{Name: p.Name, Workspace: p.Workspace, Status: p.Status, Drifted: []string{}, FailedChecks: []string{}, Issue: p.Issue}
	if p.Changes != nil && p.Status.Succeeded() {
		s := p.Changes.Summary
		pp.Summary = &s
		for _, r := range p.Changes.Drift {
			pp.Drifted = append(pp.Drifted, r.Address)
		}
	}
	if p.Changes != nil {
		for _, c := range p.Changes.Checks {
			pp.FailedChecks = append(pp.FailedChecks, c.Address)
		}
	}
	if p.Error != "" {
		pp.Error, _, _ = strings.Cut(strings.TrimSpace(p.Error), "\n")
	}
	return pp
}

// Webhook configures PostWebhook. Zero values take the defaults shown.
type Webhook struct {
	URL string // a secret: it never appears in an error
	// Transport is where the POST goes (default: a clone of http.DefaultTransport); the
	// retry policy is layered on it.
	Transport http.RoundTripper
	Attempts  int           // default 4
	Backoff   time.Duration // first backoff; default 1s
	Timeout   time.Duration // how long one attempt waits for an answer; default 10s
}

// PostWebhook sends the payload under notify's one retry policy (github.RetryPolicy, as
// for GitHub's API): a 5xx or 429 is sent again after a jittered, doubling backoff, up to
// Attempts attempts; a POST that got no answer (a network error, no answer within
// Timeout) is never sent again, since the receiver may have posted the message already.
// Errors say what went wrong, never where: the URL of a webhook is its credential.
func PostWebhook(ctx context.Context, o Webhook, pl Payload) error {
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	base := o.Transport
	if base == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.ResponseHeaderTimeout = o.Timeout
		base = t
	}
	base = attemptTimeout{base: base, timeout: o.Timeout}
	client := &http.Client{Transport: github.NewRetryTransport(base, github.RetryPolicy{MaxAttempts: o.Attempts, Backoff: o.Backoff})}
	body, err := json.Marshal(pl)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, o.URL, bytes.NewReader(body))
	if err != nil {
		return errors.New("webhook: the webhook URL is not a valid URL")
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "tfgate")
	resp, err := client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // without the URL
		}
		if ue != nil && ue.Timeout() && ctx.Err() == nil {
			err = fmt.Errorf("no answer within %s", o.Timeout)
		}
		return fmt.Errorf("webhook: %w (a POST without an answer is not sent again: it may have arrived)", err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		return nil
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		return fmt.Errorf("webhook: the webhook answered %s", resp.Status)
	}
	return fmt.Errorf("webhook: the webhook answered %s (not retried)", resp.Status)
}
