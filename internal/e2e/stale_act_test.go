package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/github/githubtest"
)

// TestTwoPullRequestsWorkflows is the two-pull-request case in a real runner with the
// example workflows as a user copies them: #7 and #8 both change app and are planned and
// approved; #7 merges and apply.yml applies it, then its notify-stale step turns #8's
// tfgate/gate pending (stale) and dispatches plan.yml for #8; that workflow_dispatch run
// checks out GitHub's test merge of #8 with the new main (refs/pull/8/merge, fetched from
// origin) and plans it; a review runs gate.yml, which holds on the re-plan; #8 merges and
// apply.yml applies the re-plan cleanly.
func TestTwoPullRequestsWorkflows(t *testing.T) {
	env := newActEnv(t)
	action := env.releasedAction(t)
	api := githubtest.New(t, githubtest.WithToken(actToken, githubtest.Token{User: githubtest.Bot, Installation: true}))
	env.release(t, "v1.0.0", strings.Repeat("1", 40)).serve(api)
	api.AddWorkflow("acme/infra", githubtest.Workflow{File: "plan.yml", Dispatch: true, Inputs: []string{"pr", "base"}, Required: []string{"pr"}})
	api.SetPermission("acme/infra", githubtest.Bob.Login, "write")
	state := filepath.Join(t.TempDir(), "state", "app.tfstate")
	repo, origin, base, headA, headB := twoPullsRepo(t, env.root, state)
	api.AddPull("acme/infra", githubtest.Pull{Number: 7, Author: githubtest.Alice, HeadSHA: headA, BaseSHA: base, HeadRef: "app-a", BaseRef: "main"})
	api.AddPull("acme/infra", githubtest.Pull{Number: 8, Author: githubtest.Alice, HeadSHA: headB, BaseSHA: base, HeadRef: "app-b", BaseRef: "main"})
	runEnv := map[string]string{"GITHUB_API_URL": api.URL(), "TFGATE_TERRAFORM": env.terraform, "TF_CLI_CONFIG_FILE": "/dev/null"}
	secrets := map[string]string{"TFGATE_PLAN_KEY": planKey}
	actions := map[string]string{"tfgate/tfgate@v1": action}

	// plan runs the plan workflow for event at head (checked out), and hands its artifact to
	// GitHub's side as uploaded by a run for head.
	plan := func(t *testing.T, event string, payload map[string]any, head string) actResult {
		t.Helper()
		res := env.run(t, actRun{Event: event, Workflow: ".github/workflows/plan.yml", Dir: repo, Payload: payload, SHA: head,
			Actions: actions, Env: runEnv, Secrets: secrets})
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
		return res
	}
	apply := func(t *testing.T, before, merge string) actResult {
		t.Helper()
		res := env.run(t, actRun{Event: "push", Workflow: ".github/workflows/apply.yml", Dir: repo, Payload: pushEvent(before, merge),
			SHA: merge, Actions: actions, Env: runEnv, Secrets: secrets})
		logOnFailure(t, res)
		if res.Err != nil {
			t.Fatalf("act: %v; want the apply job to succeed", res.Err)
		}
		return res
	}

	step(t, "plan both", func(t *testing.T) {
		git(t, repo, "checkout", "-q", "app-a")
		plan(t, "pull_request", pullRequestEvent(7, base, headA), headA)
		git(t, repo, "checkout", "-q", "app-b")
		plan(t, "pull_request", pullRequestEvent(8, base, headB), headB)
		for _, n := range []int{7, 8} {
			if got := api.PullLabels("acme/infra", n); len(got) != 1 || got[0] != "tfgate:app" {
				t.Errorf("#%d labels %q, want [tfgate:app]", n, got)
			}
		}
	})
	api.AddReview("acme/infra", 7, githubtest.Review{User: githubtest.Bob, State: "APPROVED", CommitID: headA})
	api.AddReview("acme/infra", 8, githubtest.Review{User: githubtest.Bob, State: "APPROVED", CommitID: headB})

	mergeA := mergeBranch(t, repo, origin, 7, "app-a")
	api.MergePull("acme/infra", 7, mergeA)
	step(t, "apply #7, #8 told and re-planned", func(t *testing.T) {
		res := apply(t, base, mergeA)
		for _, want := range []string{"Run Main tfgate apply", "Apply: 1 applied", "Run Main tfgate notify-stale", "#8 re-planning (app)"} {
			if !strings.Contains(res.Log, want) {
				t.Errorf("act's log lacks %q", want)
			}
		}
		if got := stateInput(t, state); got != "a" {
			t.Errorf("state holds %q, want #7's a", got)
		}
		sts := api.Statuses("acme/infra", headB)
		if last := sts[len(sts)-1]; last.Context != "tfgate/gate" || last.State != "pending" || last.Description != "stale: main changed app (#7) — re-planning" {
			t.Errorf("#8's last status %+v", last)
		}
		d := api.Dispatches()
		if len(d) != 1 || d[0].Workflow != "plan.yml" || d[0].Ref != "app-b" || d[0].Inputs["pr"] != "8" || d[0].Inputs["base"] != mergeA {
			t.Fatalf("dispatches %+v", d)
		}
	})

	// GitHub's test merge of #8 with the new main, as refs/pull/8/merge on origin.
	git(t, repo, "checkout", "-q", "--detach", mergeA)
	git(t, repo, "merge", "-q", "--no-ff", "-m", "Merge "+headB+" into "+mergeA, headB)
	testMerge := git(t, repo, "rev-parse", "HEAD")
	git(t, repo, "push", "-q", origin, testMerge+":refs/pull/8/merge")
	git(t, repo, "checkout", "-q", "app-b") // the dispatch runs on #8's branch
	step(t, "re-plan #8", func(t *testing.T) {
		d := api.Dispatches()[0]
		res := plan(t, "workflow_dispatch", map[string]any{
			"inputs": map[string]any{"pr": d.Inputs["pr"], "base": d.Inputs["base"]}, "ref": "refs/heads/app-b",
			"workflow": ".github/workflows/plan.yml", "repository": infraRepository(), "sender": map[string]any{"login": "github-actions[bot]"},
		}, headB)
		for _, want := range []string{"Check out the pull request's test merge", "Run Main tfgate plan", "Plan: 1 project", "Run Main tfgate gate"} {
			if !strings.Contains(res.Log, want) {
				t.Errorf("act's log lacks %q", want)
			}
		}
		if got := lastStatus(api, headB, "tfgate/plan"); got != "success" {
			t.Errorf("#8's tfgate/plan after the re-plan = %q, want success", got)
		}
		for _, c := range api.Comments("acme/infra", 8) {
			if strings.Contains(c.Body, "tfgate:stale") {
				t.Errorf("#8's comment still has the stale banner:\n%s", c.Body)
			}
		}
	})

	// (The re-plan run's own gate step cannot see the run's artifact here: act's artifact
	// server is not githubtest's, which gets it above only after the run. A review then runs
	// gate.yml, on GitHub's test merge as pull_request_review checks it out.)
	git(t, repo, "checkout", "-q", "--detach", testMerge)
	api.AddReview("acme/infra", 8, githubtest.Review{User: githubtest.Bob, State: "APPROVED", CommitID: headB})
	step(t, "review #8", func(t *testing.T) {
		ev := pullRequestEvent(8, base, headB)
		ev["action"] = "submitted"
		ev["review"] = map[string]any{"state": "approved", "user": map[string]any{"login": "bob"}, "commit_id": headB}
		res := env.run(t, actRun{Event: "pull_request_review", Workflow: ".github/workflows/gate.yml", Dir: repo, Payload: ev, SHA: testMerge,
			Actions: actions, Env: runEnv, Secrets: secrets})
		logOnFailure(t, res)
		if res.Err != nil {
			t.Fatalf("act: %v; want the gate job to succeed", res.Err)
		}
		if got := lastStatus(api, headB, "tfgate/gate"); got != "success" {
			t.Errorf("#8's tfgate/gate after the re-plan and a review = %q, want success", got)
		}
	})
	git(t, repo, "checkout", "-q", "app-b")

	mergeB := mergeBranch(t, repo, origin, 8, "app-b")
	api.MergePull("acme/infra", 8, mergeB)
	step(t, "apply #8", func(t *testing.T) {
		res := apply(t, mergeA, mergeB)
		if !strings.Contains(res.Log, "Apply: 1 applied") {
			t.Errorf("act's log lacks the apply of #8's re-plan")
		}
		data, err := os.ReadFile(state)
		if err != nil || !strings.Contains(string(data), `"b"`) {
			t.Errorf("state lacks #8's extra resource: %v\n%s", err, data)
		}
		if got := lastStatus(api, mergeB, "tfgate/apply"); got != "success" {
			t.Errorf("tfgate/apply on #8's merge = %q, want success", got)
		}
		t.Logf("GitHub API requests: %v", api.Counts())
	})
}

// twoPullsRepo is the repository of the two-pull-request flow: app on main, origin a bare
// repository beside it (what the re-plan fetches refs/pull/N/merge from), and the branches
// app-a (app/main.tf's value a) and app-b (a new app/extra.tf).
func twoPullsRepo(t *testing.T, root, state string) (dir, origin, base, headA, headB string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "infra")
	backend := fmt.Sprintf("terraform {\n  backend \"local\" {\n    path = %q\n  }\n}\n", state)
	writeFile(t, filepath.Join(dir, "app", "main.tf"), []byte(backend+"\nresource \"terraform_data\" \"app\" {\n  input = \"v1\"\n}\n"))
	writeFile(t, filepath.Join(dir, ".gitignore"), []byte(".terraform/\n*.tfstate\n*.tfstate.*\n"))
	for _, wf := range []string{"plan.yml", "apply.yml", "gate.yml"} {
		copyFile(t, filepath.Join(root, "examples", "workflows", wf), filepath.Join(dir, ".github", "workflows", wf))
	}
	base = commitMain(t, dir)
	origin = filepath.Join(filepath.Dir(dir), "origin.git")
	git(t, filepath.Dir(dir), "init", "-q", "--bare", "-b", "main", origin)
	git(t, dir, "remote", "set-url", "origin", origin)
	git(t, dir, "push", "-q", "origin", "main")
	git(t, dir, "checkout", "-q", "-b", "app-a")
	writeFile(t, filepath.Join(dir, "app", "main.tf"), []byte(backend+"\nresource \"terraform_data\" \"app\" {\n  input = \"a\"\n}\n"))
	git(t, dir, "commit", "-q", "-am", "app: a")
	headA = git(t, dir, "rev-parse", "HEAD")
	git(t, dir, "checkout", "-q", "-b", "app-b", "main")
	writeFile(t, filepath.Join(dir, "app", "extra.tf"), []byte("resource \"terraform_data\" \"extra\" {\n  input = \"b\"\n}\n"))
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "app: b")
	headB = git(t, dir, "rev-parse", "HEAD")
	return dir, origin, base, headA, headB
}

// mergeBranch merges branch into main with the merge button's commit, pushes main to origin
// and leaves main checked out.
func mergeBranch(t *testing.T, dir, origin string, n int, branch string) string {
	t.Helper()
	git(t, dir, "checkout", "-q", "main")
	git(t, dir, "merge", "-q", "--no-ff", "-m", fmt.Sprintf("Merge pull request #%d from acme/%s", n, branch), branch)
	merge := git(t, dir, "rev-parse", "HEAD")
	git(t, dir, "push", "-q", origin, "main")
	git(t, dir, "update-ref", "refs/remotes/origin/main", merge)
	return merge
}
