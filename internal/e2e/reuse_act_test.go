package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/github/githubtest"
)

// TestPushReusesPlansWorkflow runs examples/workflows/plan.yml in act for a pull request
// with two pushes (docs/busy-repositories.md): the first changes app and web and plans
// both; the second changes web alone, and its run reuses app's plan from the first run's
// artifact (sealed with TFGATE_PLAN_KEY), plans web, and says so in its log and comment;
// the reused bundle is in the second run's artifact, for gate and apply.
func TestPushReusesPlansWorkflow(t *testing.T) {
	env := newActEnv(t)
	action := env.releasedAction(t)
	api := githubtest.New(t, githubtest.WithToken(actToken, githubtest.Token{User: githubtest.Bot, Installation: true}))
	env.release(t, "v1.0.0", strings.Repeat("1", 40)).serve(api)
	repo, base, first := reuseRepo(t, env.root)
	api.AddPull("acme/infra", githubtest.Pull{Number: 9, Author: githubtest.Alice, HeadSHA: first, BaseSHA: base, HeadRef: "grow-prod", BaseRef: "main"})
	runEnv := map[string]string{"GITHUB_API_URL": api.URL(), "TFGATE_TERRAFORM": env.terraform, "TF_CLI_CONFIG_FILE": "/dev/null"}
	plan := func(t *testing.T, payload map[string]any, head string) (actResult, []byte) {
		t.Helper()
		res := env.run(t, actRun{Event: "pull_request", Workflow: ".github/workflows/plan.yml", Dir: repo, Payload: payload, SHA: head,
			Actions: map[string]string{"tfgate/tfgate@v1": action}, Env: runEnv, Secrets: map[string]string{"TFGATE_PLAN_KEY": planKey}})
		logOnFailure(t, res)
		if res.Err != nil {
			t.Fatalf("act: %v; want the plan job to succeed", res.Err)
		}
		artifact := "tfgate-plan-" + head
		data, err := os.ReadFile(filepath.Join(res.Artifacts, "1", artifact, artifact+".zip"))
		if err != nil {
			t.Fatal(err)
		}
		id := api.AddArtifactZip("acme/infra", planRunID, artifact, data)
		api.SetArtifactOrigin("acme/infra", id, head, false)
		return res, data
	}

	step(t, "first push", func(t *testing.T) {
		res, _ := plan(t, pullRequestEvent(9, base, first), first)
		if !strings.Contains(res.Log, "Plan: 2 projects") || strings.Contains(res.Log, "reused from") {
			t.Errorf("the first push's run did not plan both projects afresh")
		}
	})
	writeFile(t, filepath.Join(repo, "web", "main.tf"), []byte("resource \"terraform_data\" \"web\" {\n  input = \"web-3\"\n}\n"))
	git(t, repo, "commit", "-q", "-am", "web: 3")
	second := git(t, repo, "rev-parse", "HEAD")
	api.AddPull("acme/infra", githubtest.Pull{Number: 9, Author: githubtest.Alice, HeadSHA: second, BaseSHA: base, HeadRef: "grow-prod", BaseRef: "main"})
	step(t, "second push reuses app's plan", func(t *testing.T) {
		ev := pullRequestEvent(9, base, second)
		ev["before"], ev["after"] = first, second
		res, zip := plan(t, ev, second)
		want := "reused from " + first[:7] + " (nothing it depends on changed)"
		if !strings.Contains(res.Log, want) {
			t.Errorf("act's log lacks %q", want)
		}
		var comment string
		for _, c := range api.Comments("acme/infra", 9) {
			comment += c.Body
		}
		if !strings.Contains(comment, "<code>app</code> | +1 · "+want) || strings.Contains(comment, "<code>web</code> | +1 · reused") {
			t.Errorf("the comment does not say app alone was reused:\n%s", comment)
		}
		if !strings.Contains(string(zip), "app/bundle.age") || !strings.Contains(string(zip), "web/bundle.age") {
			t.Errorf("the second run's artifact lacks a sealed bundle of app or web")
		}
	})
}

// reuseRepo is a repository of two projects, app and web, and a branch grow-prod (checked
// out) whose first push changes both.
func reuseRepo(t *testing.T, root string) (dir, base, head string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "infra")
	for _, p := range []string{"app", "web"} {
		writeFile(t, filepath.Join(dir, p, "main.tf"), []byte("resource \"terraform_data\" \""+p+"\" {\n  input = \""+p+"-1\"\n}\n"))
	}
	writeFile(t, filepath.Join(dir, ".gitignore"), []byte(".terraform/\n*.tfstate\n*.tfstate.*\n"))
	copyFile(t, filepath.Join(root, "examples", "workflows", "plan.yml"), filepath.Join(dir, ".github", "workflows", "plan.yml"))
	base = commitMain(t, dir)
	git(t, dir, "checkout", "-q", "-b", "grow-prod")
	for _, p := range []string{"app", "web"} {
		writeFile(t, filepath.Join(dir, p, "main.tf"), []byte("resource \"terraform_data\" \""+p+"\" {\n  input = \""+p+"-2\"\n}\n"))
	}
	git(t, dir, "commit", "-q", "-am", "app and web: 2")
	return dir, base, git(t, dir, "rev-parse", "HEAD")
}
