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

const (
	listComments  = "GET /repos/{owner}/{repo}/issues/{issue_number}/comments"
	createComment = "POST /repos/{owner}/{repo}/issues/{issue_number}/comments"
	getUser       = "GET /user"
	createIssue   = "POST /repos/{owner}/{repo}/issues"
	listIssues    = "GET /repos/{owner}/{repo}/issues"
	createStatus  = "POST /repos/{owner}/{repo}/statuses/{sha}"
)

func quickClient(t *testing.T, s *githubtest.Server, timeout time.Duration) *github.Client {
	t.Helper()
	c, err := github.New(github.Options{BaseURL: s.URL(), Token: githubtest.InstallationToken, Backoff: 10 * time.Millisecond,
		RequestTimeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A GitHub that accepts the connection and says nothing costs one timeout per attempt, then
// a clear error: never the whole stall.
func TestStallIsRetriedThenAnError(t *testing.T) {
	s := githubtest.New(t)
	pr := s.AddPull(repo.String(), githubtest.Pull{HeadSHA: "abc"})
	c := quickClient(t, s, 200*time.Millisecond)
	ctx := context.Background()

	s.StallNext(1, time.Hour, listComments)
	start := time.Now()
	if _, err := c.ListIssueComments(ctx, repo, pr); err != nil {
		t.Fatalf("one stall: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("one stall took %s", d)
	}
	s.StallBodyNext(1, time.Hour, listComments)
	if _, err := c.ListIssueComments(ctx, repo, pr); err != nil {
		t.Fatalf("a body that stops halfway: %v", err)
	}
	if st := c.Stats(); st.Retries != 2 || s.Count(listComments) != 4 {
		t.Errorf("stats %+v, %d lists: want each stall retried once", st, s.Count(listComments))
	}

	s.StallNext(100, time.Hour, listComments)
	start = time.Now()
	_, err := c.ListIssueComments(ctx, repo, pr)
	var stall *github.StallError
	if !errors.As(err, &stall) || !strings.Contains(err.Error(), "did not answer GET /repos/acme/infra/issues/1/comments within 200ms") ||
		!strings.Contains(err.Error(), "(4 attempts)") {
		t.Fatalf("endless stall: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("endless stall held the client for %s", d)
	}
}

// An empty, cut-off or HTML 200 is never an empty list: it is retried, then an error.
func TestMalformedPagesAreNotNone(t *testing.T) {
	for _, tt := range []struct {
		name   string
		inject func(s *githubtest.Server, n int)
		want   string
	}{
		{"empty", func(s *githubtest.Server, n int) { s.EmptyNext(n, listComments) }, "with 200 and an empty body"},
		{"truncated", func(s *githubtest.Server, n int) { s.TruncateNext(n, listComments) }, "with 200 and malformed or cut-off JSON"},
		{"html", func(s *githubtest.Server, n int) { s.HTMLNext(n, listComments) }, "with 200 and an HTML page instead of JSON"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := githubtest.New(t)
			pr := s.AddPull(repo.String(), githubtest.Pull{HeadSHA: "abc"})
			s.AddComment(repo.String(), pr, githubtest.Bot, "there is one")
			c := quickClient(t, s, time.Second)
			tt.inject(s, 1)
			cs, err := c.ListIssueComments(context.Background(), repo, pr)
			if err != nil || len(cs) != 1 {
				t.Fatalf("after one bad page: %d comments, %v", len(cs), err)
			}
			tt.inject(s, 100)
			cs, err = c.ListIssueComments(context.Background(), repo, pr)
			var be *github.BodyError
			if !errors.As(err, &be) || !strings.Contains(err.Error(), tt.want) || len(cs) != 0 {
				t.Fatalf("bad pages only: %d comments, %v", len(cs), err)
			}
		})
	}
}

// GitHub did the write, then answered 5xx (or never answered): tfgate looks before it
// posts again, and there is one comment.
func TestLostAnswerIsNotPostedTwice(t *testing.T) {
	for _, tt := range []struct {
		name   string
		inject func(s *githubtest.Server)
		posts  int
	}{
		{"write then 502", func(s *githubtest.Server) { s.WriteThenFailNext(1, 502, createComment) }, 1},
		{"write then stall", func(s *githubtest.Server) { s.StallBodyNext(1, time.Hour, createComment) }, 1},
		{"write then cut-off answer", func(s *githubtest.Server) { s.TruncateNext(1, createComment) }, 1},
		{"503 without the write", func(s *githubtest.Server) { s.FailNext(1, 503, createComment) }, 2},
		{"stall without the write", func(s *githubtest.Server) { s.StallNext(1, time.Hour, createComment) }, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := githubtest.New(t)
			pr := s.AddPull(repo.String(), githubtest.Pull{HeadSHA: "abc"})
			c := quickClient(t, s, 300*time.Millisecond)
			tt.inject(s)
			got, err := c.CreateIssueComment(context.Background(), repo, pr, "audit\r\nline")
			if err != nil {
				t.Fatal(err)
			}
			cs := s.Comments(repo.String(), pr)
			if len(cs) != 1 || got.ID == 0 || cs[0].ID != got.ID {
				t.Fatalf("%d comments %+v, got %+v", len(cs), cs, got)
			}
			// One look (and the identity, once) after the lost answer.
			if s.Count(createComment) != tt.posts || s.Count(listComments) != 1 || s.Count(getUser) != 1 {
				t.Errorf("calls %v", s.Counts())
			}
			if st := c.Stats(); (st.Recovered == 1) != (tt.posts == 1) {
				t.Errorf("stats %+v", st)
			}
		})
	}
}

func TestLostIssueIsNotCreatedTwice(t *testing.T) {
	s := githubtest.New(t)
	c := quickClient(t, s, time.Second)
	s.WriteThenFailNext(1, 502, createIssue)
	title, body, labels := "drift: a", "<!-- tfgate:drift project=a -->\nbody", []string{"drift"}
	got, err := c.CreateIssue(context.Background(), repo, github.IssueRequest{Title: &title, Body: &body, Labels: &labels})
	if err != nil {
		t.Fatal(err)
	}
	if is := s.Issues(repo.String()); len(is) != 1 || got.Number != is[0].Number {
		t.Fatalf("issues %+v, got %+v", is, got)
	}
	if s.Count(createIssue) != 1 || s.Count(listIssues) != 1 {
		t.Errorf("calls %v", s.Counts())
	}
}

// When the look fails too, nothing is posted on a guess.
func TestLostAnswerAndFailedLookIsAnError(t *testing.T) {
	s := githubtest.New(t)
	pr := s.AddPull(repo.String(), githubtest.Pull{HeadSHA: "abc"})
	c := quickClient(t, s, time.Second)
	s.WriteThenFailNext(1, 502, createComment)
	s.FailNext(100, 502, listComments)
	_, err := c.CreateIssueComment(context.Background(), repo, pr, "x")
	if err == nil || !strings.Contains(err.Error(), "whether GitHub did it anyway is unknown") {
		t.Fatalf("err %v", err)
	}
	if s.Count(createComment) != 1 {
		t.Errorf("posted %d times on a guess", s.Count(createComment))
	}
}

// A status set twice is harmless: it is retried as before.
func TestStatusIsRetried(t *testing.T) {
	s := githubtest.New(t)
	c := quickClient(t, s, time.Second)
	s.WriteThenFailNext(1, 502, createStatus)
	if _, err := c.CreateStatus(context.Background(), repo, strings.Repeat("a", 40), github.Status{State: "success", Context: "tfgate/plan"}); err != nil {
		t.Fatal(err)
	}
	if s.Count(createStatus) != 2 || s.Count(listComments) != 0 {
		t.Errorf("calls %v", s.Counts())
	}
}

// A download from storage that stops halfway is retried, then an error: bounded by the
// progress of its reads.
func TestStalledDownload(t *testing.T) {
	s := githubtest.New(t)
	c := quickClient(t, s, 300*time.Millisecond)
	id := s.AddArtifact(repo.String(), 1, "tfgate-plans", map[string]string{"manifest.json": strings.Repeat("x", 4096)})
	const blob = "GET /_githubtest/blobs/{id}.zip"
	s.StallBodyNext(1, time.Hour, blob)
	if z, err := c.DownloadArtifact(context.Background(), repo, id); err != nil || len(z) == 0 {
		t.Fatalf("one stall: %d bytes, %v", len(z), err)
	}
	if s.Count(blob) != 2 {
		t.Errorf("calls %v", s.Counts())
	}
	s.StallNext(100, time.Hour, blob)
	start := time.Now()
	_, err := c.DownloadArtifact(context.Background(), repo, id)
	var stall *github.StallError
	if !errors.As(err, &stall) || time.Since(start) > 5*time.Second {
		t.Fatalf("endless stall after %s: %v", time.Since(start), err)
	}
}

// A GitHub App's token may not call GET /user, and it is not github-actions[bot]: the look
// after a lost answer knows who tfgate writes as from the status it created.
func TestLostAnswerWithAnAppToken(t *testing.T) {
	s := githubtest.New(t)
	pr := s.AddPull(repo.String(), githubtest.Pull{HeadSHA: "abc"})
	c, err := github.New(github.Options{BaseURL: s.URL(), Token: githubtest.AppToken, Backoff: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := c.CreateStatus(ctx, repo, strings.Repeat("a", 40), github.Status{State: "pending", Context: "tfgate/plan"}); err != nil {
		t.Fatal(err)
	}
	s.WriteThenFailNext(1, 502, createComment)
	if _, err := c.CreateIssueComment(ctx, repo, pr, "plan"); err != nil {
		t.Fatal(err)
	}
	if cs := s.Comments(repo.String(), pr); len(cs) != 1 || s.Count(getUser) != 0 {
		t.Errorf("%d comments, calls %v", len(cs), s.Counts())
	}
}

// The storage URL an artifact download is redirected to is signed: a credential, which no
// error may carry into the run's log (a stall, a refused connection).
func TestDownloadErrorHidesSignedURL(t *testing.T) {
	s := githubtest.New(t)
	c := quickClient(t, s, 200*time.Millisecond)
	id := s.AddArtifact(repo.String(), 1, "tfgate-plans", map[string]string{"manifest.json": "{}"})
	const blob = "GET /_githubtest/blobs/{id}.zip"
	if _, err := c.DownloadArtifact(context.Background(), repo, id); err != nil {
		t.Fatal(err)
	}
	s.StallNext(100, time.Hour, blob)
	_, err := c.DownloadArtifact(context.Background(), repo, id)
	var stall *github.StallError
	if !errors.As(err, &stall) {
		t.Fatalf("want a stall, got %v", err)
	}
	if strings.Contains(err.Error(), githubtest.StorageSignature) {
		t.Errorf("the error names the signed storage URL: %v", err)
	}
}
