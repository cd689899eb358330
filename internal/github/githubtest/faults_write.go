package githubtest

import (
	"net/http"
	"strconv"
	"time"
)

// The faults of a busy day that are not a plain error: GitHub did the write and then
// answered 5xx, accepted the connection and said nothing, or answered 200 with an empty
// or cut-off body. Each applies to the next n requests matching match (a counted key such
// as "POST /repos/{owner}/{repo}/issues/{issue_number}/comments", or "" for any request).

// WriteThenFailNext serves the next n matching requests — the comment is created, the
// issue edited — and then answers status (a 5xx) instead of the result, as GitHub does when
// a proxy in front of it times out after the write.
func (s *Server) WriteThenFailNext(n, status int, match string) {
	s.addAfterFault(n, match, func(w http.ResponseWriter, _ *http.Request, _ *recorder) {
		writeError(w, status, http.StatusText(status))
	})
}

// StallNext holds the next n matching requests for d before serving them: the connection
// is accepted and nothing is answered until d has passed, the client gives up or the test
// ends. A request still held when the client gives up is not served (nothing is written).
func (s *Server) StallNext(n int, d time.Duration, match string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, &fault{match: match, n: n, before: func(_ http.ResponseWriter, r *http.Request) bool {
		return s.hold(r, d)
	}})
}

// StallBodyNext serves the next n matching requests, sends the status, the headers and
// half the body, then holds the rest for d (or until the client gives up or the test ends).
func (s *Server) StallBodyNext(n int, d time.Duration, match string) {
	s.addAfterFault(n, match, func(w http.ResponseWriter, r *http.Request, rec *recorder) {
		body := rec.body.Bytes()
		for k, v := range rec.header {
			w.Header()[k] = v
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(rec.status)
		_, _ = w.Write(body[:len(body)/2])
		if fl, ok := w.(http.Flusher); ok {
			fl.Flush()
		}
		if s.hold(r, d) {
			_, _ = w.Write(body[len(body)/2:])
		}
	})
}

// EmptyNext answers the next n matching requests 200 with an empty body (and a JSON
// content type), without serving them.
func (s *Server) EmptyNext(n int, match string) {
	s.addFault(n, match, func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("Content-Length", "0")
		w.WriteHeader(http.StatusOK)
	})
}

// TruncateNext serves the next n matching requests and answers with their status and
// headers but only the first half of the body (Content-Length says so: the body is
// complete as HTTP goes, and malformed as JSON).
func (s *Server) TruncateNext(n int, match string) {
	s.addAfterFault(n, match, func(w http.ResponseWriter, _ *http.Request, rec *recorder) {
		body := rec.body.Bytes()
		for k, v := range rec.header {
			w.Header()[k] = v
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(body)/2))
		w.WriteHeader(rec.status)
		_, _ = w.Write(body[:len(body)/2])
	})
}

// HTMLNext answers the next n matching requests 200 with an HTML page instead of JSON, as
// a captive portal or a misconfigured proxy does, without serving them.
func (s *Server) HTMLNext(n int, match string) {
	s.addFault(n, match, func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte("<!DOCTYPE html>\n<html><body><h1>Unicorn!</h1><p>This page is taking too long to load.</p></body></html>\n"))
	})
}

func (s *Server) addAfterFault(n int, match string, after func(http.ResponseWriter, *http.Request, *recorder)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, &fault{match: match, n: n, after: after})
}

// hold waits d; false when the client gave up or the test ended first.
func (s *Server) hold(r *http.Request, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	case <-s.closing:
		return false
	}
}
