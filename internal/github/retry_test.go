package github_test

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tfgate/tfgate/internal/github"
)

// script answers each attempt in turn: a status, or a network error for 0.
type script struct {
	answers []int
	calls   int
}

func (s *script) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		io.Copy(io.Discard, r.Body)
	}
	a := s.answers[min(s.calls, len(s.answers)-1)]
	s.calls++
	if a == 0 {
		return nil, errors.New("connection reset by peer")
	}
	h := http.Header{}
	if a == http.StatusTooManyRequests {
		h.Set("Retry-After", "0")
	}
	return &http.Response{StatusCode: a, Header: h, Body: io.NopCloser(strings.NewReader("")), Request: r}, nil
}

// The one retry policy, for every request tfgate sends.
func TestRetryPolicy(t *testing.T) {
	for _, tt := range []struct {
		name    string
		method  string
		answers []int
		calls   int
		ok      bool
	}{
		{"5xx is sent again", http.MethodPost, []int{502, 503, 200}, 3, true},
		{"up to the attempts", http.MethodPost, []int{503}, 4, false},
		{"429 waits its Retry-After", http.MethodPost, []int{429, 200}, 2, true},
		{"4xx is final", http.MethodPost, []int{404}, 1, false},
		{"a GET without an answer is sent again", http.MethodGet, []int{0, 200}, 2, true},
		{"a POST without an answer is never sent again", http.MethodPost, []int{0, 200}, 1, false},
		{"a PATCH without an answer is sent again: editing twice is editing once", http.MethodPatch, []int{0, 200}, 2, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := &script{answers: tt.answers}
			c := &http.Client{Transport: github.NewRetryTransport(s, github.RetryPolicy{Backoff: time.Millisecond})}
			req, _ := http.NewRequest(tt.method, "http://example.invalid/x", strings.NewReader("{}"))
			resp, err := c.Do(req)
			ok := err == nil && resp.StatusCode == 200
			if resp != nil {
				resp.Body.Close()
			}
			if s.calls != tt.calls || ok != tt.ok {
				t.Errorf("%d calls, ok %v (err %v); want %d calls, ok %v", s.calls, ok, err, tt.calls, tt.ok)
			}
		})
	}
}
