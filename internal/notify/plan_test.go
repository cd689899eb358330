package notify

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/ci"
	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/github/githubtest"
	"github.com/tfgate/tfgate/internal/plan"
	"github.com/tfgate/tfgate/internal/report"
)

// A GitHub App's installation token writes as "<app>[bot]", not github-actions[bot], and
// may not call GET /user either: tfgate learns who it is from the status it creates, so it
// finds its own comment again instead of adding one per run.
func TestPublishLearnsAnAppsIdentity(t *testing.T) {
	app := githubtest.User{Login: "tfgate-app[bot]", ID: 77, Type: "Bot"}
	srv := githubtest.New(t, githubtest.WithToken("ghs_app", githubtest.Token{User: app, Installation: true}))
	srv.AddPull("acme/infra", githubtest.Pull{Number: 3, HeadSHA: strings.Repeat("a", 40), BaseSHA: strings.Repeat("b", 40)})
	api, err := github.New(github.Options{BaseURL: srv.URL(), Token: "ghs_app"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	gh := &GitHub{API: api,
		Env:   ci.GitHub{Repository: "acme/infra", StepSummary: filepath.Join(dir, "summary.md"), Output: filepath.Join(dir, "out")},
		Event: ci.Event{Name: "pull_request", Owner: "acme", Repo: "infra", PRNumber: 3, HeadSHA: strings.Repeat("a", 40)}}
	run := report.Run{Kind: report.KindPlan, Projects: []report.Project{{Name: "app", Dir: "app", Status: report.StatusPlanned, Changes: &plan.Changes{}}}}
	for i := range 3 {
		run.Projects[0].Changes.Summary.Add = i // a different plan each run: the comment is edited
		pub := StartPlan(context.Background(), gh, dir, func(s string) { t.Log(s) }, "")
		if err := pub.Finish(context.Background(), run, nil); err != nil {
			t.Fatal(err)
		}
	}
	cs := srv.Comments("acme/infra", 3)
	if len(cs) != 1 || cs[0].Author.Login != app.Login || cs[0].Edits != 2 {
		t.Fatalf("%d comments (first by %v, edited %d times), want one by %s edited twice", len(cs), cs[0].Author, cs[0].Edits, app.Login)
	}
	if n := srv.Count("GET /user"); n != 0 {
		t.Errorf("GET /user called %d times: the status told who tfgate is", n)
	}
	if _, err := os.Stat(filepath.Join(dir, "summary.md")); err != nil {
		t.Errorf("job summary: %v", err)
	}
}

// In Actions without a token (or with --publish none) the job summary, step outputs and
// annotations are still written: they are files and log lines, not API calls.
func TestPublishWithoutAPIWritesFiles(t *testing.T) {
	dir := t.TempDir()
	var log strings.Builder
	gh := &GitHub{Annotate: &log,
		Env:   ci.GitHub{StepSummary: filepath.Join(dir, "summary.md"), Output: filepath.Join(dir, "out")},
		Event: ci.Event{Name: "pull_request", PRNumber: 3}}
	run := report.Run{Kind: report.KindPlan, Projects: []report.Project{{Name: "app", Status: report.StatusFailed,
		Error: "Error: Unsupported argument\n\n  on main.tf line 2, in resource \"terraform_data\" \"a\":"}}}
	if err := StartPlan(context.Background(), gh, dir, nil, "").Finish(context.Background(), run, nil); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"summary.md", "out"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	if !strings.Contains(log.String(), "::error file=") {
		t.Errorf("no annotation written: %q", log.String())
	}
	out, _ := os.ReadFile(filepath.Join(dir, "out"))
	if strings.Contains(string(out), "tfgate-plan") {
		t.Errorf("artifact_name must be empty when a project failed: %s", out)
	}
}
