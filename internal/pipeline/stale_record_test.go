package pipeline

import (
	"context"
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/github/githubtest"
)

// TestToldAt: a tfgate/stale record counts only when tfgate set it and GitHub's account of
// the run it links is the completed push run of that commit on the default branch.
func TestToldAt(t *testing.T) {
	sha := strings.Repeat("a", 40)
	link := func(id string) string { return "https://github.example/acme/infra/actions/runs/" + id + "/attempts/1" }
	for _, tc := range []struct {
		name    string
		creator githubtest.User
		state   string
		url     string
		run     githubtest.Run
		want    bool
	}{
		{"the push run, success", githubtest.Bot, "success", link("11"), githubtest.Run{ID: 11, HeadSHA: sha, HeadBranch: "main", Event: "push", Conclusion: "success"}, true},
		{"the push run, failure (apply refused)", githubtest.Bot, "success", link("11"), githubtest.Run{ID: 11, HeadSHA: sha, HeadBranch: "main", Event: "push", Conclusion: "failure"}, true},
		{"a failure record", githubtest.Bot, "failure", link("11"), githubtest.Run{ID: 11, HeadSHA: sha, HeadBranch: "main", Event: "push", Conclusion: "success"}, false},
		{"set by someone else", githubtest.Alice, "success", link("11"), githubtest.Run{ID: 11, HeadSHA: sha, HeadBranch: "main", Event: "push", Conclusion: "success"}, false},
		{"the run was cancelled", githubtest.Bot, "success", link("11"), githubtest.Run{ID: 11, HeadSHA: sha, HeadBranch: "main", Event: "push", Conclusion: "cancelled"}, false},
		{"the run is in progress", githubtest.Bot, "success", link("11"), githubtest.Run{ID: 11, HeadSHA: sha, HeadBranch: "main", Event: "push", Status: "in_progress"}, false},
		{"a branch's pull_request run", githubtest.Bot, "success", link("11"), githubtest.Run{ID: 11, HeadSHA: sha, HeadBranch: "feature", Event: "pull_request", Conclusion: "success"}, false},
		{"a dispatch on a branch", githubtest.Bot, "success", link("11"), githubtest.Run{ID: 11, HeadSHA: sha, HeadBranch: "feature", Event: "workflow_dispatch", Conclusion: "success"}, false},
		{"another commit's run", githubtest.Bot, "success", link("11"), githubtest.Run{ID: 11, HeadSHA: strings.Repeat("b", 40), HeadBranch: "main", Event: "push", Conclusion: "success"}, false},
		{"no run GitHub knows", githubtest.Bot, "success", link("12"), githubtest.Run{ID: 11, HeadSHA: sha, HeadBranch: "main", Event: "push", Conclusion: "success"}, false},
		{"no run link", githubtest.Bot, "success", "https://example.com/told", githubtest.Run{ID: 11, HeadSHA: sha, HeadBranch: "main", Event: "push", Conclusion: "success"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := githubtest.New(t)
			s.AddRun(staleRepo, tc.run)
			s.AddLinkedStatus(staleRepo, sha, tc.creator, tc.state, "tfgate/stale", "told", tc.url)
			api, err := github.New(github.Options{BaseURL: s.URL(), Token: githubtest.InstallationToken})
			if err != nil {
				t.Fatal(err)
			}
			who := func() (github.Identity, error) { return github.IdentityOf(context.Background(), api, "") }
			got, err := toldAt(context.Background(), api, github.Repo{Owner: "acme", Name: "infra"}, who, "main", sha)
			if err != nil || got != tc.want {
				t.Errorf("toldAt = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}
