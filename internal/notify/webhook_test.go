package notify

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tfgate/tfgate/internal/report"
)

func TestNewPayload(t *testing.T) {
	p := driftedProject("web")
	p.Issue = "https://github.com/acme/infra/issues/3"
	run := report.Run{Kind: report.KindDrift, Projects: []report.Project{p, withStatus(driftedProject("db"), report.StatusInSync), withStatus(driftedProject("net"), report.StatusFailed)}}
	pl := NewPayload(run, "abc", "https://ci/run/1")
	if pl.Counts["drifted"] != 1 || pl.Counts["in_sync"] != 1 || pl.Counts["failed"] != 1 || len(pl.Projects) != 3 {
		t.Errorf("payload %+v", pl)
	}
	want := "tfgate drift: 3 projects checked: 1 drifted, 1 error, 1 in sync — https://ci/run/1\n• web: drifted (1 resource) https://github.com/acme/infra/issues/3\n• net: drift check failed"
	if pl.Text != want {
		t.Errorf("text\n%s\nwant\n%s", pl.Text, want)
	}
	data, _ := json.Marshal(pl)
	if strings.Contains(string(data), "v2") {
		t.Errorf("payload carries attribute values: %s", data)
	}
}

func TestPostWebhookRetries(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		switch calls.Add(1) {
		case 1:
			w.WriteHeader(http.StatusBadGateway)
		case 2:
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusTooManyRequests)
		}
	}))
	defer srv.Close()
	url := srv.URL + "/hooks/s3cr3t"
	err := PostWebhook(context.Background(), Webhook{URL: url, Backoff: time.Millisecond, Timeout: time.Second}, Payload{Text: "x"})
	if err != nil || calls.Load() != 3 {
		t.Fatalf("err %v after %d calls, want success on the third", err, calls.Load())
	}
}

// A POST that got no answer may have been received (Slack posted the message, then the
// connection dropped): it is not sent again, as the GitHub client never repeats one.
func TestPostWebhookNeverRepeatsAnUnansweredPost(t *testing.T) {
	var calls atomic.Int32
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		calls.Add(1)
		<-release // past the timeout
	}))
	defer srv.Close()
	defer close(release)
	err := PostWebhook(context.Background(), Webhook{URL: srv.URL + "/hooks/s3cr3t", Backoff: time.Millisecond, Timeout: 100 * time.Millisecond}, Payload{Text: "x"})
	if err == nil || !strings.Contains(err.Error(), "no answer within 100ms") || calls.Load() != 1 {
		t.Fatalf("err %v after %d calls, want one call and no answer", err, calls.Load())
	}
	if strings.Contains(err.Error(), "s3cr3t") {
		t.Errorf("the error names the URL: %v", err)
	}
}

func TestPostWebhookGivesUp(t *testing.T) {
	for _, tt := range []struct {
		status    int
		wantCalls int32
	}{{http.StatusServiceUnavailable, 3}, {http.StatusNotFound, 1}} {
		var calls atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			calls.Add(1)
			w.WriteHeader(tt.status)
		}))
		url := srv.URL + "/hooks/s3cr3t"
		err := PostWebhook(context.Background(), Webhook{URL: url, Attempts: 3, Backoff: time.Millisecond}, Payload{})
		srv.Close()
		if err == nil || calls.Load() != tt.wantCalls {
			t.Errorf("%d: err %v after %d calls, want an error after %d", tt.status, err, calls.Load(), tt.wantCalls)
		}
		if err != nil && (strings.Contains(err.Error(), "s3cr3t") || strings.Contains(err.Error(), srv.URL)) {
			t.Errorf("the error names the URL: %v", err)
		}
	}
	// Nothing listens: the network error leaves the URL out too.
	err := PostWebhook(context.Background(), Webhook{URL: "http://127.0.0.1:1/hooks/s3cr3t", Attempts: 2, Backoff: time.Millisecond}, Payload{})
	if err == nil || strings.Contains(err.Error(), "s3cr3t") {
		t.Errorf("err %v", err)
	}
}
