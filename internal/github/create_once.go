package github

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// createOnce posts something that must exist once (a comment, an issue). GitHub sometimes
// does the write and then answers 5xx, or the answer is lost (a stall, a reset): posting
// again would leave a duplicate. So after such a failure it waits, looks for what it posted
// (find: the same content, written by tfgate's identity) and posts again only when that is
// not there; when the look itself fails it stops, naming both errors, rather than guess.
// Any other refusal (4xx, a rate limit too far away) is returned as is.
func createOnce[T any](ctx context.Context, c *Client, what string, create func(context.Context) (T, error),
	find func(context.Context, Identity) (T, bool, error)) (T, error) {
	var zero T
	backoff := c.o.Backoff
	for attempt := 1; ; attempt++ {
		v, err := create(ctx)
		if err == nil {
			return v, nil
		}
		if !answerLost(ctx, err) || attempt >= c.o.MaxAttempts {
			return zero, wrap(what, err)
		}
		if serr := sleep(ctx, jitter(backoff)); serr != nil {
			return zero, wrap(what, err)
		}
		backoff *= 2
		c.n.retries.Add(1)
		id, ierr := c.Identity(ctx)
		if ierr != nil {
			return zero, fmt.Errorf("%s: %w; whether GitHub did it anyway is unknown: %w", what, err, ierr)
		}
		found, ok, ferr := find(ctx, id)
		if ferr != nil {
			return zero, fmt.Errorf("%s: %w; whether GitHub did it anyway is unknown: %w", what, err, ferr)
		}
		if ok {
			c.n.recovered.Add(1)
			return found, nil
		}
	}
}

// answerLost reports whether GitHub may have done what err says failed: a 5xx, or no
// (usable) answer at all, while tfgate itself was not cancelled.
func answerLost(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	switch status := HTTPStatus(err); {
	case status >= 500:
		return true
	case status != 0:
		return false
	}
	var rl *RateLimitError
	return !errors.As(err, &rl)
}

// findComment is the newest comment on issue number whose body is body, written by id.
func (c *Client) findComment(ctx context.Context, repo Repo, number int, body string, id Identity) (Comment, bool, error) {
	all, err := c.ListIssueComments(ctx, repo, number)
	if err != nil {
		return Comment{}, false, err
	}
	for _, cm := range slices.Backward(all) {
		if id.Is(cm.Author) && sameText(cm.Body, body) {
			return cm, true, nil
		}
	}
	return Comment{}, false, nil
}

// findIssue is the newest issue (any state) with r's title and body, written by id.
func (c *Client) findIssue(ctx context.Context, repo Repo, r IssueRequest, id Identity) (Issue, bool, error) {
	f := IssueFilter{State: "all"}
	if r.Labels != nil {
		f.Labels = *r.Labels
	}
	all, err := c.ListIssues(ctx, repo, f)
	if err != nil {
		return Issue{}, false, err
	}
	var best Issue
	found := false
	for _, is := range all {
		if id.Is(is.Author) && (r.Title == nil || is.Title == *r.Title) && (r.Body == nil || sameText(is.Body, *r.Body)) &&
			(!found || is.Number > best.Number) {
			best, found = is, true
		}
	}
	return best, found, nil
}

// sameText compares bodies as GitHub may give them back: line ends as CRLF.
func sameText(got, sent string) bool {
	return got == sent || strings.ReplaceAll(got, "\r\n", "\n") == strings.ReplaceAll(sent, "\r\n", "\n")
}
