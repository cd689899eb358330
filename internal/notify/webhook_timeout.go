package notify

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"time"
)

// attemptTimeout bounds one attempt of the webhook's POST, its answer's body included: a
// receiver that sends its headers and then stalls must not hold the run (the default
// transport's ResponseHeaderTimeout stops at the headers, and a given transport may have
// none). What the receiver answers is read here, at most 64 KiB of it.
type attemptTimeout struct {
	base    http.RoundTripper
	timeout time.Duration
}

func (t attemptTimeout) RoundTrip(r *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithTimeout(r.Context(), t.timeout)
	defer cancel()
	resp, err := t.base.RoundTrip(r.WithContext(ctx))
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, nil
}
