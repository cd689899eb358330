package e2e

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// githubStub stands in for GitHub's REST API until internal/github/githubtest (the stateful
// fake that holds requests to GitHub's OpenAPI description) is available; then this file is
// replaced by it. It answers every request 404 and records what was asked.
type githubStub struct {
	URL string

	mu       sync.Mutex
	requests []string // "METHOD /path"
}

func newGitHubStub(t *testing.T) *githubStub {
	t.Helper()
	s := &githubStub{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests = append(s.requests, r.Method+" "+r.URL.Path)
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"message":"Not Found (e2e stub)"}`))
	}))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// Requests returns the requests seen so far, in order.
func (s *githubStub) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...)
}
