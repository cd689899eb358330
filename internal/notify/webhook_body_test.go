package notify

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// A receiver that answers its headers and then stalls in the body holds the run no longer
// than Timeout: one attempt, never sent again (it may have posted the message), and the
// error says so without the URL.
func TestPostWebhookStalledBody(t *testing.T) {
	var calls atomic.Int32
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.WriteHeader(http.StatusOK)
		w.Write([]byte("o"))
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		done <- PostWebhook(context.Background(), Webhook{URL: srv.URL + "/hooks/s3cr3t", Backoff: time.Millisecond, Timeout: 200 * time.Millisecond}, Payload{Text: "x"})
	}()
	var err error
	select {
	case err = <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("PostWebhook still waits for the body after 5s (Timeout 200ms)")
	}
	if err == nil || !strings.Contains(err.Error(), "no answer within 200ms") || strings.Contains(err.Error(), "s3cr3t") {
		t.Errorf("after %s: %v", time.Since(start), err)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("%d posts, want 1", n)
	}
}
