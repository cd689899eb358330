package notify

import (
	"context"
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/github/githubtest"
	"github.com/tfgate/tfgate/internal/report"
)

// A GitHub App's installation token may not call GET /user and writes as "<app>[bot]": the
// guessed identity (github-actions[bot]) is wrong, and the next run would not find the issue.
// The first run says so, naming the login to configure; with it configured, the issue is
// found again and edited, never duplicated.
func TestPublishIssuesWithAnAppToken(t *testing.T) {
	app := githubtest.User{Login: "tfgate-app[bot]", ID: 77, Type: "Bot"}
	srv := githubtest.New(t, githubtest.WithToken("ghs_app", githubtest.Token{User: app, Installation: true}))
	api, err := github.New(github.Options{BaseURL: srv.URL(), Token: "ghs_app"})
	if err != nil {
		t.Fatal(err)
	}
	repo := github.Repo{Owner: "acme", Name: "infra"}
	run := report.Run{Kind: report.KindDrift, Projects: []report.Project{driftedProject("web")}}
	ctx := context.Background()

	_, err = PublishDriftIssues(ctx, DriftIssues{API: api, Repo: repo}, run)
	if err == nil || !strings.Contains(err.Error(), `set github.identity: "tfgate-app[bot]"`) {
		t.Fatalf("a wrong guess must be named with the login to configure, got %v", err)
	}
	for range 2 {
		if _, err := PublishDriftIssues(ctx, DriftIssues{API: api, Repo: repo, Identity: app.Login}, run); err != nil {
			t.Fatal(err)
		}
	}
	if got := srv.Issues("acme/infra"); len(got) != 1 {
		t.Fatalf("%d issues, want the one tfgate opened, found again", len(got))
	}
}
