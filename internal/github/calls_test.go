package github_test

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/github/githubtest"
)

func ptr[T any](v T) *T { return &v }

// TestCalls runs every call of the API against githubtest, which holds each request to
// GitHub's OpenAPI description.
func TestCalls(t *testing.T) {
	ctx := context.Background()
	s := githubtest.New(t)
	files := make([]string, 120)
	for i := range files {
		files[i] = fmt.Sprintf("envs/p%03d/main.tf", i)
	}
	pr := s.AddPull(repo.String(), githubtest.Pull{HeadSHA: "abc", Files: files})
	s.AddReview(repo.String(), pr, githubtest.Review{User: githubtest.Bob, State: "APPROVED", CommitID: "abc"})
	s.SetPermission(repo.String(), "bob", "write")
	c := newClient(t, s, githubtest.InstallationToken)

	if _, err := c.CreateStatus(ctx, repo, "abc", github.Status{State: "success", Context: "tfgate/plan",
		Description: "1 project: +1 ~0 -0", TargetURL: "https://example.com/run/1"}); err != nil {
		t.Fatal(err)
	}
	if st := s.Statuses(repo.String(), "abc"); len(st) != 1 || st[0].Context != "tfgate/plan" {
		t.Errorf("statuses %+v", st)
	}
	rv, err := c.ListReviews(ctx, repo, pr)
	if err != nil || len(rv) != 1 || rv[0].User.Login != "bob" || rv[0].State != "APPROVED" || rv[0].CommitID != "abc" || rv[0].SubmittedAt.IsZero() {
		t.Errorf("reviews %+v, %v", rv, err)
	}
	perm, err := c.CollaboratorPermission(ctx, repo, "bob")
	if err != nil || perm != "write" {
		t.Errorf("permission %q, %v", perm, err)
	}
	fs, err := c.ListPullFiles(ctx, repo, pr)
	if err != nil || len(fs) != 120 {
		t.Errorf("%d files, %v", len(fs), err)
	}

	if err := c.CreateLabel(ctx, repo, github.Label{Name: "drift", Color: "d73a4a", Description: "found by tfgate"}); err != nil {
		t.Fatal(err)
	}
	ls, err := c.ListLabels(ctx, repo)
	if err != nil || len(ls) != 1 || ls[0].Name != "drift" {
		t.Errorf("labels %+v, %v", ls, err)
	}
	is, err := c.CreateIssue(ctx, repo, github.IssueRequest{Title: ptr("drift: prod"), Body: ptr("body"), Labels: &[]string{"drift"}})
	if err != nil || is.Number == 0 || is.Author.Login != "github-actions[bot]" {
		t.Fatalf("create issue %+v, %v", is, err)
	}
	list, err := c.ListIssues(ctx, repo, github.IssueFilter{Labels: []string{"drift"}, State: "open", Creator: github.ActionsBot})
	if err != nil || len(list) != 1 || list[0].Labels[0] != "drift" {
		t.Errorf("issues %+v, %v", list, err)
	}
	all, err := c.ListIssues(ctx, repo, github.IssueFilter{State: "all"})
	if err != nil || len(all) != 1 {
		t.Errorf("pull requests must not be listed as issues: %+v, %v", all, err)
	}
	if _, err := c.EditIssue(ctx, repo, is.Number, github.IssueRequest{State: ptr("closed")}); err != nil {
		t.Fatal(err)
	}
	if got := s.Issues(repo.String()); got[0].State != "closed" {
		t.Errorf("issue not closed: %+v", got)
	}

	var id int64
	for run := int64(1); run <= 3; run++ {
		id = s.AddArtifact(repo.String(), run, "tfgate-plans", map[string]string{"manifest.json": fmt.Sprint(run)})
	}
	as, err := c.ListArtifacts(ctx, repo, "tfgate-plans", 0)
	if err != nil || len(as) != 3 || as[0].ID != id {
		t.Errorf("artifacts %+v, %v", as, err)
	}
	as, err = c.ListArtifacts(ctx, repo, "tfgate-plans", 2)
	if err != nil || len(as) != 1 || as[0].RunID != 2 {
		t.Errorf("run artifacts %+v, %v", as, err)
	}
	z, err := c.DownloadArtifact(ctx, repo, id)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(z), int64(len(z)))
	if err != nil || zr.File[0].Name != "manifest.json" {
		t.Errorf("zip %v", err)
	}
	st := c.Stats()
	if st.Calls != int64(s.Requests()) || st.Retries != 0 {
		t.Errorf("client counted %+v, server %d", st, s.Requests())
	}
}

func TestBaseURLMustBeAbsolute(t *testing.T) {
	if _, err := github.New(github.Options{BaseURL: "api.github.com"}); err == nil {
		t.Error("relative base URL accepted")
	}
}

func TestFiveHundredsAreBounded(t *testing.T) {
	s := githubtest.New(t)
	s.FailNext(10, 500, "")
	c := newClient(t, s, githubtest.AliceToken)
	start := time.Now()
	_, err := c.AuthenticatedUser(context.Background())
	if github.HTTPStatus(err) != 500 || s.Requests() != 4 {
		t.Errorf("after %d requests in %s: %v", s.Requests(), time.Since(start), err)
	}
	if st := c.Stats(); st.Retries != 3 || st.RateLimitWaits != 0 {
		t.Errorf("stats %+v: backoff after a 5xx is a retry, not a rate-limit wait", st)
	}
}
