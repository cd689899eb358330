package drift

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

	"github.com/tfgate/tfgate/internal/english"
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
	Summary   *plan.Summary `json:"summary"` // what applying the code would do; null without a plan
	Issue     string        `json:"issue,omitempty"`
	Error     string        `json:"error,omitempty"` // first line of the error, masked already
}

// NewPayload builds the webhook document of a run.
func NewPayload(run report.Run, commit, runURL string) Payload {
	pl := Payload{Kind: report.KindDrift, Commit: commit, RunURL: runURL, Counts: map[string]int{}, Projects: []PayloadProject{}}
	var lines []string
	for _, p := range run.Projects {
		pp := PayloadProject{Name: p.Name, Workspace: p.Workspace, Status: p.Status, Drifted: []string{}, Issue: p.Issue}
		if p.Changes != nil {
			s := p.Changes.Summary
			pp.Summary = &s
			for _, r := range p.Changes.Drift {
				pp.Drifted = append(pp.Drifted, r.Address)
			}
		}
		if p.Error != "" {
			pp.Error, _, _ = strings.Cut(strings.TrimSpace(p.Error), "\n")
		}
		pl.Counts[string(p.Status)]++
		pl.Projects = append(pl.Projects, pp)
		if Tracked(p.Status) {
			l := fmt.Sprintf("• %s: %s", p.Name, word(p.Status))
			if n := len(pp.Drifted); n > 0 {
				l += " (" + english.Plural(n, "resource", "resources") + ")"
			}
			if p.Issue != "" {
				l += " " + p.Issue
			}
			lines = append(lines, l)
		}
	}
	head := fmt.Sprintf("tfgate drift: %s checked", english.Plural(len(run.Projects), "project", "projects"))
	var parts []string
	for _, st := range []report.Status{report.StatusDrifted, report.StatusPending, report.StatusFailed, report.StatusInSync} {
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

// WebhookOptions configure Post. Zero values take the defaults shown.
type WebhookOptions struct {
	URL      string       // a secret: it never appears in an error
	Client   *http.Client // default: http.DefaultClient's transport
	Attempts int          // default 4
	Backoff  time.Duration
	Timeout  time.Duration // per attempt; default 10s
}

// Post sends the payload once, retrying network errors, timeouts, 429 and 5xx with
// exponential backoff (Backoff, default 1s, doubling) up to Attempts times. Errors say what
// went wrong, never where: the URL of a webhook is its credential.
func Post(ctx context.Context, o WebhookOptions, pl Payload) error {
	if o.Attempts <= 0 {
		o.Attempts = 4
	}
	if o.Backoff <= 0 {
		o.Backoff = time.Second
	}
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	client := o.Client
	if client == nil {
		client = &http.Client{}
	}
	body, err := json.Marshal(pl)
	if err != nil {
		return err
	}
	wait := o.Backoff
	var last error
	for attempt := 1; ; attempt++ {
		retry, err := postOnce(ctx, client, o, body)
		if err == nil {
			return nil
		}
		last = err
		if !retry || attempt >= o.Attempts {
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("webhook: %w (after %d attempts)", ctx.Err(), attempt)
		case <-time.After(wait):
		}
		wait *= 2
	}
	return fmt.Errorf("webhook: %w", last)
}

func postOnce(ctx context.Context, client *http.Client, o WebhookOptions, body []byte) (retry bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, o.URL, bytes.NewReader(body))
	if err != nil {
		return false, errors.New("the webhook URL is not a valid URL")
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "tfgate")
	resp, err := client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // without the URL
		}
		if errors.Is(err, context.DeadlineExceeded) {
			return true, fmt.Errorf("no answer within %s", o.Timeout)
		}
		return true, err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		return false, nil
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		return true, fmt.Errorf("the webhook answered %s", resp.Status)
	}
	return false, fmt.Errorf("the webhook answered %s (not retried)", resp.Status)
}
