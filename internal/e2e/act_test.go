package e2e

import (
	"archive/zip"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/github/githubtest"
)

// TestPlanWorkflow runs examples/workflows/plan.yml, as a user copies it, on a pull_request
// event in act: the composite action downloads tfgate's newest v1 release (this checkout,
// served by the fake GitHub) and plans the pull request, and the plan bundles are uploaded as
// the workflow's artifact.
//
// The example monorepo's policies deny envs/prod/network on purpose (a protected resource is
// deleted). A pull request touching it makes tfgate exit 3: the step and the job fail — the
// pull request's check is red — and the bundles are uploaded all the same, because a denied
// plan must still be reviewable.
func TestPlanWorkflow(t *testing.T) {
	env := newActEnv(t)
	action := env.releasedAction(t)
	release := env.release(t, "v1.0.0", strings.Repeat("1", 40))
	workflow, err := os.ReadFile(filepath.Join(env.root, "examples", "workflows", "plan.yml"))
	if err != nil {
		t.Fatal(err)
	}
	workflow = recordStepOutputs(t, workflow, "plan", "tfgate")

	for _, tc := range []struct {
		name     string
		edit     []string // files the pull request edits
		exitCode string
		jobOK    bool
		projects []string // planned, in order; none: nothing is uploaded
		log      []string // in act's log
	}{
		{
			name:     "denied",
			edit:     []string{"modules/app/main.tf", "envs/prod/network/main.tf"},
			exitCode: "3",
			projects: []string{"envs/dev/app", "envs/prod/network", "envs/prod/app"}, // the config's order
			log:      []string{"Plan: 3 projects", "tfgate: 1 project denied by policy", "Job 'plan' failed"},
		},
		{
			name:     "passes",
			edit:     []string{"envs/dev/app/main.tf"},
			exitCode: "0",
			jobOK:    true,
			projects: []string{"envs/dev/app"},
			log:      []string{"Plan: 1 project", "Job succeeded"},
		},
		{
			name:     "nothing to plan",
			edit:     []string{"NOTES.md"},
			exitCode: "0",
			jobOK:    true,
			log:      []string{"Job succeeded"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			api := githubtest.New(t, githubtest.WithToken(actToken, githubtest.Token{User: githubtest.Bot, Installation: true}))
			release.serve(api)
			repo, base, head := pullRequestRepo(t, env.root, workflow, tc.edit)
			api.AddPull("acme/infra", githubtest.Pull{Number: 7, Title: "Grow prod", Author: githubtest.Alice,
				HeadSHA: head, BaseSHA: base, HeadRef: "grow-prod", BaseRef: "main"})
			record := filepath.Join(t.TempDir(), "outputs.json")
			res := env.run(t, actRun{
				Event:    "pull_request",
				Workflow: ".github/workflows/plan.yml",
				Dir:      repo,
				Payload:  pullRequestEvent(7, base, head),
				SHA:      head,
				Actions:  map[string]string{"tfgate/tfgate@v1": action},
				Env: map[string]string{
					"GITHUB_API_URL":     api.URL(),
					"TFGATE_TERRAFORM":   env.terraform,
					"TF_CLI_CONFIG_FILE": "/dev/null",
					"E2E_RECORD":         record,
				},
			})
			logOnFailure(t, res)

			if ok := res.Err == nil; ok != tc.jobOK {
				t.Errorf("act: %v; want the job to succeed: %v", res.Err, tc.jobOK)
			}
			for _, want := range append([]string{"Run Main tfgate plan"}, tc.log...) {
				if !strings.Contains(res.Log, want) {
					t.Errorf("act's log lacks %q", want)
				}
			}

			// The step's outputs, as a later step of the job reads them.
			step := readRecord(t, record)
			wantOutcome := "success"
			if !tc.jobOK {
				wantOutcome = "failure"
			}
			if step.Outcome != wantOutcome {
				t.Errorf("tfgate step outcome = %q, want %s", step.Outcome, wantOutcome)
			}
			if got := step.Outputs["exit_code"]; got != tc.exitCode {
				t.Errorf("output exit_code = %q, want %s", got, tc.exitCode)
			}
			wantChanges, wantName := "false", ""
			if len(tc.projects) > 0 {
				wantChanges, wantName = "true", "tfgate-plan-"+head
			}
			if got := step.Outputs["has_changes"]; got != wantChanges {
				t.Errorf("output has_changes = %q, want %s", got, wantChanges)
			}
			if got := step.Outputs["artifact_name"]; got != wantName {
				t.Errorf("output artifact_name = %q, want %q", got, wantName)
			}
			var projects []string
			if err := json.Unmarshal([]byte(step.Outputs["projects"]), &projects); err != nil || !slices.Equal(projects, tc.projects) {
				t.Errorf("output projects = %q, want the JSON array %q", step.Outputs["projects"], tc.projects)
			}

			// The bundles reached act's artifact server: one manifest and plan file per
			// project, for the pull request's head commit; no plan, no artifact.
			if wantName != "" {
				checkBundleArtifact(t, filepath.Join(res.Artifacts, "1", wantName, wantName+".zip"), head, tc.projects)
			} else if uploaded, _ := filepath.Glob(filepath.Join(res.Artifacts, "*", "*")); len(uploaded) > 0 {
				t.Errorf("nothing was planned, yet artifacts were uploaded: %q", uploaded)
			}

			checkPublished(t, api, head, tc.projects, tc.exitCode == "3")
		})
	}
}

// commitMain makes dir a repository whose main branch holds everything in it, also as
// origin/main, origin's default branch, and returns that commit. act names the repository
// after origin; tfgate compares with origin's default branch.
func commitMain(t *testing.T, dir string) string {
	t.Helper()
	git(t, dir, "init", "-q", "-b", "main")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "infrastructure")
	base := git(t, dir, "rev-parse", "HEAD")
	git(t, dir, "remote", "add", "origin", "https://github.com/acme/infra.git")
	git(t, dir, "update-ref", "refs/remotes/origin/main", base)
	git(t, dir, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main")
	return base
}

// pullRequestRepo makes a git repository holding a copy of examples/monorepo and the workflow
// on its main branch (also origin/main, the default branch), and a pull request branch,
// checked out, whose one commit edits (or adds) the given files.
func pullRequestRepo(t *testing.T, root string, workflow []byte, edit []string) (dir, base, head string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "infra")
	copyTree(t, filepath.Join(root, "examples", "monorepo"), dir, func(_ string, d os.DirEntry) bool {
		return d.Name() != ".terraform"
	})
	writeFile(t, filepath.Join(dir, ".github", "workflows", "plan.yml"), workflow)
	base = commitMain(t, dir)
	git(t, dir, "checkout", "-q", "-b", "grow-prod")
	for _, f := range edit {
		appendFile(t, filepath.Join(dir, f), "\n# edited by the pull request\n")
	}
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "Grow prod")
	head = git(t, dir, "rev-parse", "HEAD")
	return dir, base, head
}

// actToken is the GITHUB_TOKEN act gives the workflow (secrets.GITHUB_TOKEN, github.token).
const actToken = "ghs_e2etoken"

// checkPublished asserts the pull request's review as tfgate published it from inside the
// runner: one sticky comment by the workflow's token, naming every planned project, and the
// tfgate/plan status on the head commit (failure when a policy denied).
func checkPublished(t *testing.T, api *githubtest.Server, head string, projects []string, denied bool) {
	t.Helper()
	t.Logf("GitHub API requests: %v", api.Counts())
	comments := api.Comments("acme/infra", 7)
	if len(comments) != 1 {
		t.Fatalf("pull request 7 has %d comments, want one sticky comment", len(comments))
	}
	c := comments[0]
	if c.Author.Login != githubtest.Bot.Login || !strings.HasPrefix(c.Body, "<!-- tfgate:plan pr=7 part=1/1 -->") {
		t.Errorf("comment by %s, starting %q: not tfgate's sticky comment", c.Author.Login, firstLine(c.Body))
	}
	for _, p := range projects {
		if !strings.Contains(c.Body, p) {
			t.Errorf("the comment does not name %s", p)
		}
	}
	var state string
	for _, st := range api.Statuses("acme/infra", head) {
		if st.Context == "tfgate/plan" {
			state = st.State
		}
	}
	want := "success"
	if denied {
		want = "failure"
	}
	if state != want {
		t.Errorf("status tfgate/plan on the head commit = %q, want %s", state, want)
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// stepRecord is a step's `steps.<id>` context as recordStepOutputs writes it.
type stepRecord struct {
	Outcome    string            `json:"outcome"`
	Conclusion string            `json:"conclusion"`
	Outputs    map[string]string `json:"outputs"`
}

func readRecord(t *testing.T, path string) stepRecord {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the recording step did not run: %v", err)
	}
	var r stepRecord
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatalf("recorded step %s: %v", data, err)
	}
	return r
}

// checkBundleArtifact opens the artifact zip and checks that it holds a bundle (manifest.json
// and the plan file it names) for each project, made from commit.
func checkBundleArtifact(t *testing.T, path, commit string, projects []string) {
	t.Helper()
	z, err := zip.OpenReader(path)
	if err != nil {
		entries, _ := filepath.Glob(filepath.Join(filepath.Dir(filepath.Dir(path)), "*", "*"))
		t.Fatalf("plan artifact: %v (the artifact directory holds %q)", err, entries)
	}
	defer z.Close()
	files := map[string]*zip.File{}
	for _, f := range z.File {
		files[f.Name] = f
	}
	var got []string
	for name, f := range files {
		if filepath.Base(name) != "manifest.json" {
			continue
		}
		var m struct {
			Project  string `json:"project"`
			Commit   string `json:"commit"`
			PlanFile string `json:"plan_file"`
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		err = json.NewDecoder(rc).Decode(&m)
		rc.Close()
		if err != nil {
			t.Fatalf("%s in the artifact: %v", name, err)
		}
		got = append(got, m.Project)
		if m.Commit != commit {
			t.Errorf("%s: commit %s, want the pull request's head %s", name, m.Commit, commit)
		}
		if _, ok := files[filepath.Join(filepath.Dir(name), m.PlanFile)]; !ok {
			t.Errorf("%s names plan file %q, which is not in the artifact", name, m.PlanFile)
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, slices.Sorted(slices.Values(projects))) {
		t.Errorf("artifact holds manifests of %q, want %q", got, projects)
	}
}

func pullRequestEvent(number int, base, head string) map[string]any {
	repo := infraRepository()
	return map[string]any{
		"action": "synchronize",
		"number": number,
		"pull_request": map[string]any{
			"number": number,
			"title":  "Grow prod",
			"user":   map[string]any{"login": "alice"},
			"head":   map[string]any{"sha": head, "ref": "grow-prod", "repo": repo},
			"base":   map[string]any{"sha": base, "ref": "main", "repo": repo},
		},
		"repository": repo,
		"sender":     map[string]any{"login": "alice"},
	}
}

// infraRepository is the repository acme/infra as event payloads carry it.
func infraRepository() map[string]any {
	return map[string]any{
		"name": "infra", "full_name": "acme/infra", "owner": map[string]any{"login": "acme"},
		"default_branch": "main", "private": true,
	}
}

func appendFile(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// logOnFailure shows the end of act's log if the test fails.
func logOnFailure(t *testing.T, res actResult) {
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("act exited with %v; the end of its log:\n%s", res.Err, tail(res.Log, 120))
		}
	})
}
