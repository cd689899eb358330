package github

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// StallError is an attempt GitHub did not answer in time: it accepted the connection and
// then said nothing (or stopped halfway through the body) for Options.RequestTimeout.
type StallError struct {
	Method, Path string
	After        time.Duration
}

func (e *StallError) Error() string {
	return fmt.Sprintf("GitHub did not answer %s %s within %s", e.Method, e.Path, e.After)
}

// BodyError is a 200 whose body is not the JSON GitHub sends: empty, cut off, or an HTML
// page from something in between. A list page like that is never read as "none".
type BodyError struct {
	Method, Path string
	Status       int
	Problem      string // "an empty body", "malformed JSON (123 bytes)", …
}

func (e *BodyError) Error() string {
	return fmt.Sprintf("GitHub answered %s %s with %d and %s", e.Method, e.Path, e.Status, e.Problem)
}

var errStalled = errors.New("stalled")

// timeoutTransport bounds one attempt. For an API call (a JSON answer is expected) the
// whole attempt, body included, must finish within timeout, and a 200 or 201 must carry
// valid JSON; any other body (an artifact archive from storage) is streamed, and only
// each read's progress is bounded by timeout.
type timeoutTransport struct {
	base    http.RoundTripper
	timeout time.Duration
}

func (t *timeoutTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	parent := r.Context()
	ctx, cancel := context.WithCancelCause(parent)
	timer := time.AfterFunc(t.timeout, func() { cancel(errStalled) })
	stalled := func(err error) error {
		if parent.Err() == nil && errors.Is(context.Cause(ctx), errStalled) {
			return &StallError{Method: r.Method, Path: r.URL.Path, After: t.timeout}
		}
		return err
	}
	resp, err := t.base.RoundTrip(r.WithContext(ctx))
	if err != nil {
		timer.Stop()
		cancel(nil)
		return nil, stalled(err)
	}
	if !wantsJSON(r) {
		resp.Body = &idleBody{ReadCloser: resp.Body, timer: timer, timeout: t.timeout, cancel: cancel, stalled: stalled}
		return resp, nil
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	timer.Stop()
	cancel(nil)
	if err != nil {
		return nil, stalled(err)
	}
	if resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusCreated {
		if problem := badJSON(body); problem != "" {
			return nil, &BodyError{Method: r.Method, Path: r.URL.Path, Status: resp.StatusCode, Problem: problem}
		}
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	return resp, nil
}

// streamKey marks a request context whose answer is not JSON but a file (an artifact
// archive from storage), streamed to the caller.
type streamKey struct{}

func streamed(ctx context.Context) context.Context {
	return context.WithValue(ctx, streamKey{}, true)
}

// wantsJSON: every API call but a download from storage.
func wantsJSON(r *http.Request) bool {
	v, _ := r.Context().Value(streamKey{}).(bool)
	return !v
}

func badJSON(body []byte) string {
	trimmed := bytes.TrimSpace(body)
	switch {
	case len(trimmed) == 0:
		return "an empty body"
	case !json.Valid(trimmed) && trimmed[0] == '<':
		return fmt.Sprintf("an HTML page instead of JSON (%d bytes)", len(body))
	case !json.Valid(trimmed):
		return fmt.Sprintf("malformed or cut-off JSON (%d bytes)", len(body))
	}
	return ""
}

// idleBody ends a streamed body whose reads stop making progress for timeout.
type idleBody struct {
	io.ReadCloser
	timer   *time.Timer
	timeout time.Duration
	cancel  context.CancelCauseFunc
	stalled func(error) error
}

func (b *idleBody) Read(p []byte) (int, error) {
	b.timer.Reset(b.timeout)
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF {
		err = b.stalled(err)
	}
	return n, err
}

func (b *idleBody) Close() error {
	b.timer.Stop()
	b.cancel(nil)
	return b.ReadCloser.Close()
}

// idempotentKey marks a request context: a POST that may be sent again after a lost answer
// (a commit status: the newest one counts), unlike one that creates a record.
type idempotentKey struct{}

func idempotent(ctx context.Context) context.Context {
	return context.WithValue(ctx, idempotentKey{}, true)
}

// repeatable reports whether the transport may send r again when its answer was lost or
// was a 5xx: every method but POST, and a POST marked idempotent. Other POSTs create
// something, which GitHub may have done before failing: the caller looks before posting
// again (createOnce).
func repeatable(r *http.Request) bool {
	if r.Method != http.MethodPost {
		return true
	}
	v, _ := r.Context().Value(idempotentKey{}).(bool)
	return v
}
