package github

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"
)

// RetryPolicy is the one way tfgate repeats an HTTP request, to GitHub's API and to the
// drift webhook alike (NewRetryTransport):
//
//   - a 500, 502, 503 or 504 is sent again after a jittered exponential backoff (50–100 % of
//     Backoff, doubling), up to MaxAttempts attempts in all;
//   - an exhausted primary rate limit (403/429 with X-RateLimit-Remaining: 0) is waited out
//     when its reset is at most MaxWait away; another 429 waits its Retry-After (at most
//     MaxWait), or the backoff without one;
//   - a request that got no answer (a network error, a timeout) is sent again unless it is
//     a POST: a POST may have been received and acted on (a second comment, issue or
//     webhook message), so it is never repeated;
//   - on GitHub's API a POST answered 5xx is not sent again either (GitHub sometimes does
//     the write, then fails), except one marked idempotent (a commit status, a label): a
//     comment or an issue is created through createOnce, which looks before it posts again;
//   - everything else (4xx) is final.
//
// All waits of one request together stay within MaxRetryTime, and a cancelled context ends
// them at once.
type RetryPolicy struct {
	MaxAttempts  int           // default 4
	Backoff      time.Duration // first wait after a 5xx; default 1s
	MaxWait      time.Duration // longest single wait for a rate limit; default 60s
	MaxRetryTime time.Duration // longest total waiting per request; default 2m
}

func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = 4
	}
	if p.Backoff <= 0 {
		p.Backoff = time.Second
	}
	if p.MaxWait <= 0 {
		p.MaxWait = 60 * time.Second
	}
	if p.MaxRetryTime <= 0 {
		p.MaxRetryTime = 2 * time.Minute
	}
	return p
}

func (o Options) retryPolicy() RetryPolicy {
	return RetryPolicy{MaxAttempts: o.MaxAttempts, Backoff: o.Backoff, MaxWait: o.MaxWait, MaxRetryTime: o.MaxRetryTime}.withDefaults()
}

// NewRetryTransport sends requests through base under policy p, for endpoints other than
// GitHub's API (the GitHub client has it already, with GitHub's rate limiters below it).
// The request body is read again for each attempt.
func NewRetryTransport(base http.RoundTripper, p RetryPolicy) http.RoundTripper {
	return &retryTransport{base: &replayTransport{base: base}, p: p.withDefaults(), n: &counters{}}
}

type retryTransport struct {
	base http.RoundTripper
	p    RetryPolicy
	n    *counters
	// resend, when set, decides whether a request may be sent again after a 5xx or no
	// answer (GitHub's API: repeatable); nil: anything but a POST without an answer.
	resend func(*http.Request) bool
}

func (t *retryTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	ctx := r.Context()
	deadline := time.Now().Add(t.p.MaxRetryTime)
	backoff := t.p.Backoff
	for attempt := 1; ; attempt++ {
		resp, err := t.base.RoundTrip(r)
		wait, retry, limited := t.shouldRetry(r, resp, err, backoff)
		if !retry || attempt >= t.p.MaxAttempts || time.Now().Add(wait).After(deadline) {
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
		again := r.Method != http.MethodPost
		if t.resend != nil {
			again = t.resend(r)
		}
		return jitter(backoff), r.Context().Err() == nil && again, false
	}
	switch resp.StatusCode {
	case http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		// So may a POST answered 5xx, on GitHub's API.
		return jitter(backoff), t.resend == nil || t.resend(r), false
	case http.StatusForbidden, http.StatusTooManyRequests:
		reset, ok := primaryReset(resp)
		if !ok {
			if resp.StatusCode == http.StatusTooManyRequests {
				// Not GitHub's primary limit (its secondary one is waited out below this
				// transport): a receiver asking to slow down, for as long as it says.
				if after, ok := retryAfter(resp); ok {
					return after, after <= t.p.MaxWait, true
				}
				return jitter(backoff), true, false
			}
			return 0, false, false
		}
		wait := time.Until(reset) + time.Second // the reset is rounded to seconds
		return max(wait, 0), wait <= t.p.MaxWait, true
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

// retryAfter is a Retry-After header given in seconds.
func retryAfter(resp *http.Response) (time.Duration, bool) {
	secs, err := strconv.Atoi(resp.Header.Get("Retry-After"))
	if err != nil || secs < 0 {
		return 0, false
	}
	return time.Duration(secs) * time.Second, true
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
