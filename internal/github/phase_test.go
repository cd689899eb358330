package github_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/github/githubtest"
)

// A GitHub that stalls every request is given the publishing phase's time, not each
// request's in turn.
func TestPublishPhaseIsBounded(t *testing.T) {
	s := githubtest.New(t)
	pr := s.AddPull(repo.String(), githubtest.Pull{HeadSHA: "abc"})
	c := quickClient(t, s, time.Hour)
	s.StallNext(100, time.Hour, "")
	start := time.Now()
	ctx, phase := github.StartPublish(context.Background(), 300*time.Millisecond)
	_, err1 := c.ListIssueComments(ctx, repo, pr)
	_, err2 := c.CreateStatus(ctx, repo, strings.Repeat("a", 40), github.Status{State: "success", Context: "tfgate/plan"})
	err := phase.End(errors.Join(err1, err2))
	if err == nil || !strings.Contains(err.Error(), "publishing to GitHub was stopped after 300ms (TFGATE_PUBLISH_TIMEOUT)") ||
		!strings.Contains(err.Error(), "list comments") || !strings.Contains(err.Error(), "set status") {
		t.Fatalf("err %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the phase took %s", d)
	}

	ctx, phase = github.StartPublish(context.Background(), time.Minute)
	s2 := githubtest.New(t)
	c2 := quickClient(t, s2, time.Second)
	_, err = c2.AuthenticatedUser(ctx)
	if err := phase.End(err); err == nil || strings.Contains(err.Error(), "TFGATE_PUBLISH_TIMEOUT") {
		t.Errorf("a phase in time: %v", err)
	}
}
