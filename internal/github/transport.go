package github

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/gofri/go-github-ratelimit/v2/github_ratelimit"
	"github.com/gofri/go-github-ratelimit/v2/github_ratelimit/github_secondary_ratelimit"
)

// Stats counts what the client sent, for the run's closing note and metrics.
type Stats struct {
	Calls   int64 // HTTP requests sent, retries included
	Retries int64 // requests sent again after a 5xx, a secondary or a near primary rate limit
	// Recovered counts creates (a comment, an issue) whose answer was lost (a 5xx, a stall)
	// and that were found done on GitHub, so not posted again.
	Recovered int64
	// RateLimitWaits counts the waits for a rate limit (primary or secondary) before a
	// retry; RateLimitWait is how long they lasted together. Backoff after a 5xx is not a
	// rate-limit wait.
	RateLimitWaits int64
	RateLimitWait  time.Duration
}

type counters struct {
	calls, retries, limitWaits atomic.Int64
	recovered                  atomic.Int64
	limitWait                  atomic.Int64 // nanoseconds
}

// waited records one rate-limit wait of d.
func (n *counters) waited(d time.Duration) {
	n.limitWaits.Add(1)
	n.limitWait.Add(int64(max(d, 0)))
}

// The transport stack, outermost first:
//
//	retryTransport       5xx with exponential backoff; a primary rate limit whose reset is near
//	secondary limiter    github.com/gofri/go-github-ratelimit/v2: waits out secondary limits
//	replayTransport      gives every attempt a fresh copy of the request body
//	timeoutTransport     bounds one attempt by Options.RequestTimeout; a 200 must be JSON
//	countTransport       counts what reaches the network
//
// Every wait is bounded by Options.MaxWait (one wait) and Options.MaxRetryTime (all waits
// of one request), and ends early when the context is cancelled. A POST that creates
// something is never sent again here once it may have reached GitHub (repeatable).
func newTransport(base http.RoundTripper, o Options, n *counters) http.RoundTripper {
	counted := &countTransport{base: base, n: n}
	bounded := &timeoutTransport{base: counted, timeout: o.RequestTimeout}
	replay := &replayTransport{base: bounded}
	secondary := github_ratelimit.NewSecondaryLimiter(replay,
		github_secondary_ratelimit.WithSingleSleepLimit(o.MaxWait, nil),
		github_secondary_ratelimit.WithTotalSleepLimit(o.MaxRetryTime, nil),
		github_secondary_ratelimit.WithLimitDetectedCallback(func(cc *github_secondary_ratelimit.CallbackContext) {
			n.retries.Add(1)
			if cc.ResetTime != nil {
				// Called just before the limiter sleeps until the reset.
				n.waited(time.Until(*cc.ResetTime))
			}
		}),
	)
	return &retryTransport{base: secondary, o: o, n: n}
}

type countTransport struct {
	base http.RoundTripper
	n    *counters
}

func (t *countTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	t.n.calls.Add(1)
	return t.base.RoundTrip(r)
}

// replayTransport exists because retries above it send the same *http.Request again,
// whose body the previous attempt consumed.
type replayTransport struct{ base http.RoundTripper }

func (t *replayTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil && r.GetBody != nil {
		body, err := r.GetBody()
		if err != nil {
			return nil, err
		}
		r = r.Clone(r.Context())
		r.Body = body
	}
	return t.base.RoundTrip(r)
}

type retryTransport struct {
	base http.RoundTripper
	o    Options
	n    *counters
}

func (t *retryTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	ctx := r.Context()
	deadline := time.Now().Add(t.o.MaxRetryTime)
	backoff := t.o.Backoff
	for attempt := 1; ; attempt++ {
		resp, err := t.base.RoundTrip(r)
		wait, retry, limited := t.shouldRetry(r, resp, err, backoff)
		if !retry || attempt >= t.o.MaxAttempts || time.Now().Add(wait).After(deadline) {
			if err != nil && attempt > 1 {
				err = fmt.Errorf("%w (%d attempts)", err, attempt)
			}
			return resp, err
		}
		if resp != nil {
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
			resp.Body.Close()
		}
		if limited {
			t.n.waited(wait)
		}
		if err := sleep(ctx, wait); err != nil {
			return nil, err
		}
		t.n.retries.Add(1)
		backoff *= 2
	}
}

// shouldRetry decides whether an attempt is worth repeating, after how long, and whether
// that wait is for a rate limit.
func (t *retryTransport) shouldRetry(r *http.Request, resp *http.Response, err error, backoff time.Duration) (wait time.Duration, retry, limited bool) {
	if err != nil {
		// A POST that never got an answer may have created something: do not repeat it.
		return jitter(backoff), r.Context().Err() == nil && repeatable(r), false
	}
	switch resp.StatusCode {
	case http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		// So may a POST answered 5xx: GitHub sometimes writes, then fails.
		return jitter(backoff), repeatable(r), false
	case http.StatusForbidden, http.StatusTooManyRequests:
		reset, ok := primaryReset(resp)
		if !ok {
			return 0, false, false
		}
		wait := time.Until(reset) + time.Second // the reset is rounded to seconds
		return max(wait, 0), wait <= t.o.MaxWait, true
	}
	return 0, false, false
}

// primaryReset is when an exhausted primary rate limit resets.
func primaryReset(resp *http.Response) (time.Time, bool) {
	if resp.Header.Get("X-RateLimit-Remaining") != "0" {
		return time.Time{}, false
	}
	secs, err := strconv.ParseInt(resp.Header.Get("X-RateLimit-Reset"), 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	return time.Unix(secs, 0), true
}

// jitter spreads retries of concurrent jobs: 50–100 % of d.
func jitter(d time.Duration) time.Duration {
	return d/2 + rand.N(d/2+1)
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-tm.C:
		return nil
	}
}
