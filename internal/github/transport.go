package github

import (
	"net/http"
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
//	retryTransport       RetryPolicy: 5xx with jittered backoff; a primary rate limit whose reset is near
//	secondary limiter    github.com/gofri/go-github-ratelimit/v2: waits out secondary limits
//	replayTransport      gives every attempt a fresh copy of the request body
//	timeoutTransport     bounds one attempt by Options.RequestTimeout; a 200 must be JSON
//	countTransport       counts what reaches the network
//
// Every wait is bounded by Options.MaxWait (one wait) and Options.MaxRetryTime (all waits
// of one request), and ends early when the context is cancelled.
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
	return &retryTransport{base: secondary, p: o.retryPolicy(), n: n, resend: repeatable}
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
