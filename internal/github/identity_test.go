package github_test

import (
	"context"
	"testing"
	"time"

	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/github/githubtest"
)

var repo = github.Repo{Owner: "acme", Name: "infra"}

func newClient(t *testing.T, s *githubtest.Server, token string) *github.Client {
	t.Helper()
	c, err := github.New(github.Options{BaseURL: s.URL(), Token: token, Backoff: 10 * time.Millisecond, MaxWait: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestIdentityOfInstallationToken(t *testing.T) {
	s := githubtest.New(t)
	c := newClient(t, s, githubtest.InstallationToken)
	for range 2 {
		id, err := c.Identity(context.Background())
		if err != nil || id.Login != "github-actions[bot]" || id.Source != "installation token" {
			t.Fatalf("identity %+v, %v", id, err)
		}
	}
	if s.Count("GET /user") != 1 {
		t.Errorf("GET /user called %d times, want 1 (cached)", s.Count("GET /user"))
	}
	id, err := newClient(t, s, githubtest.AliceToken).Identity(context.Background())
	if err != nil || id.Login != "alice" {
		t.Errorf("personal token identity %+v, %v", id, err)
	}
}
