package githubtest

import (
	"net/http"
	"strconv"
	"time"
)

// fault answers the next n requests that match it with an error instead of serving them
// (write), or changes how they are served (see faults_write.go: serve first, then answer
// something else; stall).
type fault struct {
	match string // "" for any request, else "METHOD /pattern" as counted
	n     int
	write func(w http.ResponseWriter)
	// before, when set, runs instead of write before the request is served; false: it
	// answered the request itself (the client gave up, or the server is closing).
	before func(w http.ResponseWriter, r *http.Request) bool
	// after, when set, serves the request (the write happens), then answers with what
	// after makes of the handler's response instead.
	after func(w http.ResponseWriter, r *http.Request, rec *recorder)
}

// FailNext answers the next n requests matching match with status (a 5xx). match is a
// counted key such as "PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}", or ""
// for any request.
func (s *Server) FailNext(n, status int, match string) {
	s.addFault(n, match, func(w http.ResponseWriter) {
		writeError(w, status, http.StatusText(status))
	})
}

// SecondaryRateLimitNext answers the next n matching requests with GitHub's secondary rate
// limit: 403, a retry-after header and GitHub's message.
func (s *Server) SecondaryRateLimitNext(n int, retryAfter time.Duration, match string) {
	secs := int(retryAfter.Round(time.Second) / time.Second)
	s.addFault(n, match, func(w http.ResponseWriter) {
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		writeJSON(w, http.StatusForbidden, map[string]string{
			"message":           "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID.",
			"documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits",
		})
	})
}

// PrimaryRateLimitNext answers the next n matching requests with an exhausted primary rate
// limit: status (403 or 429), x-ratelimit-remaining 0 and x-ratelimit-reset at reset.
func (s *Server) PrimaryRateLimitNext(n, status int, reset time.Time, match string) {
	s.addFault(n, match, func(w http.ResponseWriter) {
		h := w.Header()
		h.Set("X-RateLimit-Limit", "5000")
		h.Set("X-RateLimit-Remaining", "0")
		h.Set("X-RateLimit-Used", "5000")
		h.Set("X-RateLimit-Reset", strconv.FormatInt(reset.Unix(), 10))
		h.Set("X-RateLimit-Resource", "core")
		writeJSON(w, status, map[string]string{
			"message":           "API rate limit exceeded for installation ID 1.",
			"documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-primary-rate-limits",
		})
	})
}

func (s *Server) addFault(n int, match string, write func(http.ResponseWriter)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, &fault{match: match, n: n, write: write})
}

// takeFault is the first pending fault that matches key, counted as used; nil for none.
func (s *Server) takeFault(key string) *fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range s.faults {
		if f.n > 0 && (f.match == "" || f.match == key) {
			f.n--
			return f
		}
	}
	return nil
}

// Requests is the number of requests the server received, faults and refusals included.
func (s *Server) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total
}

// Count is the number of requests received for key ("METHOD /pattern", the description's
// path template, e.g. "GET /repos/{owner}/{repo}/issues/{issue_number}/comments").
func (s *Server) Count(key string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts[key]
}

// Counts is a copy of the per-key request counts.
func (s *Server) Counts() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int, len(s.counts))
	for k, v := range s.counts {
		out[k] = v
	}
	return out
}

// ResetCounts zeroes the request counters, e.g. after seeding through the API.
func (s *Server) ResetCounts() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.total = 0
	s.counts = map[string]int{}
}

// TakeViolations returns the contract violations recorded so far and forgets them, so a
// test that sends a bad request on purpose can check it and still pass.
func (s *Server) TakeViolations() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.violations
	s.violations = nil
	return v
}
