package e2e

import (
	"archive/zip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/github/githubtest"
	"gopkg.in/yaml.v3"
)

// planKey is the repository secret TFGATE_PLAN_KEY of both workflows.
const planKey = "e2e-plan-key-correct-horse-battery"

// planRunID is the id GitHub gave the plan run: the artifact's workflow run in githubtest.
const planRunID = 4242

// TestPlanThenApplyWorkflows is the review flow in a real runner, with both example
// workflows as a user copies them: plan.yml plans a pull request and uploads the bundles,
// encrypted with TFGATE_PLAN_KEY; the pull request merges; apply.yml, on the merge's push,
// applies exactly the reviewed plan — once an approval on the planned commit holds. Merged
// without one (no branch protection), the apply is refused (exit 4) and nothing is applied;
// after bob's approval a re-run of the apply workflow applies it and leaves the audit (the
// comment naming bob, tfgate/apply on the merge commit).
//
// The subtests are the flow's steps, in order, on one repository and one fake GitHub: a
// failing step ends the test.
func TestPlanThenApplyWorkflows(t *testing.T) {
	env := newActEnv(t)
	action := env.releasedAction(t)
	api := githubtest.New(t, githubtest.WithToken(actToken, githubtest.Token{User: githubtest.Bot, Installation: true}))
	env.release(t, "v1.0.0", strings.Repeat("1", 40)).serve(api)
	// act runs each job in a copy of the work tree of its own; the state lives outside the
	// repository, where this test reads it.
	state := filepath.Join(t.TempDir(), "state", "app.tfstate")
	repo, base, head := reviewRepo(t, env.root, state)
	api.AddPull("acme/infra", githubtest.Pull{Number: 7, Title: "Grow app", Author: githubtest.Alice,
		HeadSHA: head, BaseSHA: base, HeadRef: "grow-app", BaseRef: "main"})
	api.SetPermission("acme/infra", githubtest.Bob.Login, "write")
	artifact := "tfgate-plan-" + head
	runEnv := func(record string) map[string]string {
		return map[string]string{
			"GITHUB_API_URL":     api.URL(),
			"TFGATE_TERRAFORM":   env.terraform,
			"TF_CLI_CONFIG_FILE": "/dev/null",
			"E2E_RECORD":         record,
		}
	}
	secrets := map[string]string{"TFGATE_PLAN_KEY": planKey}

	step(t, "plan", func(t *testing.T) {
		res := env.run(t, actRun{
			Event:    "pull_request",
			Workflow: ".github/workflows/plan.yml",
			Dir:      repo,
			Payload:  pullRequestEvent(7, base, head),
			SHA:      head,
			Actions:  map[string]string{"tfgate/tfgate@v1": action},
			Env:      runEnv(filepath.Join(t.TempDir(), "outputs.json")),
			Secrets:  secrets,
		})
		logOnFailure(t, res)
		if res.Err != nil {
			t.Errorf("act: %v; want the plan job to succeed", res.Err)
		}
		for _, want := range []string{"Run Main tfgate plan", "Plan: 1 project", "Job succeeded"} {
			if !strings.Contains(res.Log, want) {
				t.Errorf("act's log lacks %q", want)
			}
		}
		if strings.Contains(res.Log, "NOT ENCRYPTED") {
			t.Errorf("tfgate warned that the bundles are not encrypted: TFGATE_PLAN_KEY did not reach it")
		}
		checkSecretAbsent(t, res.Log)

		// act's artifact server keeps the upload under the run (always 1 in act, and a fresh
		// directory per run): the zip GitHub would serve.
		zipPath := filepath.Join(res.Artifacts, "1", artifact, artifact+".zip")
		checkEncryptedArtifact(t, zipPath, head, "app")
		data, err := os.ReadFile(zipPath)
		if err != nil {
			t.Fatal(err)
		}
		// apply.yml runs `tfgate apply --plans github`: tfgate finds the plan run's artifact
		// through GitHub's REST API (by name, uploaded for the reviewed head by a run of this
		// repository, not a fork's). actions/download-artifact could fetch another run's
		// artifact only given that run's id and a token for GitHub's API, so the workflow
		// does not use it. Here GitHub's side is githubtest, serving act's zip as uploaded.
		id := api.AddArtifactZip("acme/infra", planRunID, artifact, data)
		api.SetArtifactOrigin("acme/infra", id, head, false)
	})

	// The merge button: a merge commit on main, pushed; GitHub marks the pull request merged.
	git(t, repo, "checkout", "-q", "main")
	git(t, repo, "merge", "-q", "--no-ff", "-m", "Merge pull request #7 from acme/grow-app", "grow-app")
	merge := git(t, repo, "rev-parse", "HEAD")
	git(t, repo, "update-ref", "refs/remotes/origin/main", merge)
	api.MergePull("acme/infra", 7, merge)
	if out := git(t, repo, "status", "--porcelain", "--ignored"); out != "" {
		t.Fatalf("the repository is not clean after the merge (act copies it as the checkout):\n%s", out)
	}

	apply := func(t *testing.T) (actResult, stepRecord) {
		t.Helper()
		record := filepath.Join(t.TempDir(), "outputs.json")
		res := env.run(t, actRun{
			Event:    "push",
			Workflow: ".github/workflows/apply.yml",
			Dir:      repo,
			Payload:  pushEvent(base, merge),
			SHA:      merge,
			Actions:  map[string]string{"tfgate/tfgate@v1": action},
			Env:      runEnv(record),
			Secrets:  secrets,
		})
		logOnFailure(t, res)
		checkSecretAbsent(t, res.Log)
		return res, readRecord(t, record)
	}

	step(t, "merged without approval", func(t *testing.T) {
		res, rec := apply(t)
		if res.Err == nil {
			t.Errorf("act succeeded; want the apply job to fail: nobody approved")
		}
		if rec.Outcome != "failure" || rec.Outputs["exit_code"] != "4" {
			t.Errorf("tfgate step: outcome %q, exit_code %q; want failure, 4 (the gate refused)", rec.Outcome, rec.Outputs["exit_code"])
		}
		for _, want := range []string{"Run Main tfgate apply", "needs 1 more approval", "Job 'apply' failed"} {
			if !strings.Contains(res.Log, want) {
				t.Errorf("act's log lacks %q", want)
			}
		}
		if _, err := os.Stat(state); !os.IsNotExist(err) {
			t.Errorf("the state file %s exists (%v): something was applied without approval", state, err)
		}
		if got := lastStatus(api, merge, "tfgate/apply"); got != "failure" {
			t.Errorf("status tfgate/apply on the merge commit = %q, want failure", got)
		}
	})

	// bob approves what was planned; the apply workflow is re-run.
	api.AddReview("acme/infra", 7, githubtest.Review{User: githubtest.Bob, State: "APPROVED", CommitID: head})

	step(t, "approved", func(t *testing.T) {
		res, rec := apply(t)
		if res.Err != nil {
			t.Errorf("act: %v; want the apply job to succeed", res.Err)
		}
		if rec.Outcome != "success" || rec.Outputs["exit_code"] != "0" {
			t.Errorf("tfgate step: outcome %q, exit_code %q; want success, 0", rec.Outcome, rec.Outputs["exit_code"])
		}
		for _, want := range []string{"Run Main tfgate apply", "Apply: 1 applied", "Job succeeded"} {
			if !strings.Contains(res.Log, want) {
				t.Errorf("act's log lacks %q", want)
			}
		}
		if got := stateInput(t, state); got != "v2" {
			t.Errorf("terraform_data.app in the state holds %q, want the reviewed v2", got)
		}
		if got := lastStatus(api, merge, "tfgate/apply"); got != "success" {
			t.Errorf("status tfgate/apply on the merge commit = %q, want success", got)
		}
		t.Logf("GitHub API requests: %v", api.Counts())
		checkApplyComments(t, api)
	})
}

// step runs one step of a flow as a subtest and ends the test when it fails: the next steps
// build on it.
func step(t *testing.T, name string, f func(t *testing.T)) {
	t.Helper()
	if !t.Run(name, f) {
		t.FailNow()
	}
}

// reviewRepo makes the repository of the review flow: on main (also origin/main, the
// default branch) one project, app, a terraform_data holding "v1" with its state in the
// file state outside the repository, and the example plan and apply workflows; and the
// pull request branch grow-app, checked out, whose one commit makes the value "v2".
func reviewRepo(t *testing.T, root, state string) (dir, base, head string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "infra")
	project := func(value string) []byte {
		return fmt.Appendf(nil, `terraform {
  backend "local" {
    path = %q
  }
}

resource "terraform_data" "app" {
  input = %q
}
`, state, value)
	}
	writeFile(t, filepath.Join(dir, "app", "main.tf"), project("v1"))
	// What terraform leaves in the working tree is ignored: apply refuses a dirty tree.
	writeFile(t, filepath.Join(dir, ".gitignore"), []byte(".terraform/\n*.tfstate\n*.tfstate.*\n"))
	plan, err := os.ReadFile(filepath.Join(root, "examples", "workflows", "plan.yml"))
	if err != nil {
		t.Fatal(err)
	}
	apply, err := os.ReadFile(filepath.Join(root, "examples", "workflows", "apply.yml"))
	if err != nil {
		t.Fatal(err)
	}
	// The test reads the apply step's outputs (exit_code) as a later step would: the step
	// gets an id, and a recording step follows it.
	apply = recordStepOutputs(t, setStepID(t, apply, "apply", "tfgate/tfgate@v1", "tfgate"), "apply", "tfgate")
	writeFile(t, filepath.Join(dir, ".github", "workflows", "plan.yml"), plan)
	writeFile(t, filepath.Join(dir, ".github", "workflows", "apply.yml"), apply)
	base = commitMain(t, dir)
	git(t, dir, "checkout", "-q", "-b", "grow-app")
	writeFile(t, filepath.Join(dir, "app", "main.tf"), project("v2"))
	git(t, dir, "commit", "-q", "-am", "app: v2")
	head = git(t, dir, "rev-parse", "HEAD")
	return dir, base, head
}

// setStepID gives the step of job that uses action the id, for recordStepOutputs.
func setStepID(t *testing.T, workflow []byte, job, action, id string) []byte {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal(workflow, &doc); err != nil {
		t.Fatalf("parse workflow: %v", err)
	}
	steps := mapValue(mapValue(mapValue(doc.Content[0], "jobs"), job), "steps")
	if steps == nil || steps.Kind != yaml.SequenceNode {
		t.Fatalf("workflow has no jobs.%s.steps", job)
	}
	var found int
	for _, s := range steps.Content {
		// (apply.yml's job runs the action twice, apply then notify-stale: the one whose
		// command is the job's.)
		if c := mapValue(mapValue(s, "with"), "command"); c != nil && c.Value != job {
			continue
		}
		if u := mapValue(s, "uses"); u != nil && u.Value == action {
			if mapValue(s, "id") != nil {
				t.Fatalf("the step using %s already has an id", action)
			}
			s.Content = append([]*yaml.Node{
				{Kind: yaml.ScalarNode, Value: "id"}, {Kind: yaml.ScalarNode, Value: id},
			}, s.Content...)
			found++
		}
	}
	if found != 1 {
		t.Fatalf("jobs.%s has %d steps using %s, want one", job, found, action)
	}
	out, err := yaml.Marshal(&doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// pushEvent is the push of the merge commit after onto main.
func pushEvent(before, after string) map[string]any {
	return map[string]any{
		"ref": "refs/heads/main", "before": before, "after": after,
		"head_commit": map[string]any{"id": after},
		"repository":  infraRepository(),
		"pusher":      map[string]any{"name": "bob"},
		"sender":      map[string]any{"login": "bob"},
	}
}

// checkEncryptedArtifact opens the artifact zip and checks that it holds, for project, an
// encrypted bundle of commit: the manifest says so and only the age file holds the plan.
func checkEncryptedArtifact(t *testing.T, path, commit, project string) {
	t.Helper()
	z, err := zip.OpenReader(path)
	if err != nil {
		entries, _ := filepath.Glob(filepath.Join(filepath.Dir(filepath.Dir(path)), "*", "*"))
		t.Fatalf("plan artifact: %v (the artifact directory holds %q)", err, entries)
	}
	defer z.Close()
	var names []string
	var manifest map[string]any
	for _, f := range z.File {
		names = append(names, f.Name)
		if f.Name != project+"/manifest.json" {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &manifest); err != nil {
			t.Fatalf("%s in the artifact: %v", f.Name, err)
		}
	}
	t.Logf("artifact %s: %q", filepath.Base(path), names)
	if manifest == nil {
		t.Fatalf("the artifact holds no %s/manifest.json", project)
	}
	if manifest["encrypted"] != true {
		t.Errorf("manifest: encrypted = %v, want true", manifest["encrypted"])
	}
	if manifest["project"] != project || manifest["commit"] != commit {
		t.Errorf("manifest: project %v, commit %v; want %s, the pull request's head %s", manifest["project"], manifest["commit"], project, commit)
	}
	if !slices.Contains(names, project+"/bundle.age") {
		t.Errorf("the artifact holds no %s/bundle.age", project)
	}
	for _, n := range names {
		if strings.HasSuffix(n, ".tfplan") {
			t.Errorf("the artifact holds %s: a plan file in clear text", n)
		}
	}
}

// checkApplyComments asserts the pull request's audit: tfgate's plan comment, then one apply
// comment per apply run (the refusal, the apply), the last naming bob's approval.
func checkApplyComments(t *testing.T, api *githubtest.Server) {
	t.Helper()
	var applies []githubtest.Comment
	for _, c := range api.Comments("acme/infra", 7) {
		if c.Author.Login != githubtest.Bot.Login {
			t.Errorf("a comment by %s, starting %q: only tfgate comments here", c.Author.Login, firstLine(c.Body))
		}
		if strings.HasPrefix(c.Body, "<!-- tfgate:apply pr=7 part=1/1 -->") {
			applies = append(applies, c)
		}
	}
	if len(applies) != 2 {
		t.Fatalf("pull request 7 has %d apply comments, want 2 (the refusal, the apply)", len(applies))
	}
	last := applies[1].Body
	for _, want := range []string{"applied", "bob"} {
		if !strings.Contains(last, want) {
			t.Errorf("the apply comment does not say %q:\n%s", want, last)
		}
	}
}

// lastStatus is the state of the newest status context on sha, "" when none.
func lastStatus(api *githubtest.Server, sha, context string) string {
	var state string
	for _, st := range api.Statuses("acme/infra", sha) {
		if st.Context == context {
			state = st.State
		}
	}
	return state
}

// stateInput is the input of terraform_data.app in the state file at path.
func stateInput(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("state: %v", err)
	}
	var st struct {
		Resources []struct {
			Type, Name string
			Instances  []struct {
				Attributes struct {
					Input struct {
						Value any `json:"value"`
					} `json:"input"`
				} `json:"attributes"`
			} `json:"instances"`
		} `json:"resources"`
	}
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatalf("state %s: %v", path, err)
	}
	for _, r := range st.Resources {
		if r.Type == "terraform_data" && r.Name == "app" && len(r.Instances) == 1 {
			return fmt.Sprint(r.Instances[0].Attributes.Input.Value)
		}
	}
	t.Fatalf("state %s holds no terraform_data.app:\n%s", path, data)
	return ""
}

// checkSecretAbsent fails when the plan key is in act's log (act masks secrets it was given;
// this holds it to that).
func checkSecretAbsent(t *testing.T, log string) {
	t.Helper()
	if strings.Contains(log, planKey) {
		t.Errorf("TFGATE_PLAN_KEY is in act's log")
	}
}
