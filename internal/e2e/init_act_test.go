package e2e

import (
	"crypto/sha1"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/github/githubtest"
	"github.com/tfgate/tfgate/internal/setup"
	"github.com/tfgate/tfgate/internal/testenv"
)

// TestInitWorkflowsDownload runs the plan workflow `tfgate init` writes, on a pull request,
// in act on a runner without Go, against the fake GitHub serving tfgate/tfgate's releases as
// the release workflow publishes them (archive and checksums.txt): for each way init pins
// the action, the action downloads the release (the action's checkout holds only action.yml:
// it cannot build), checks its checksum, and plans.
//
//   - a development build's init writes @v1: the newest v1.x.y release, v1.4.2 — not the
//     later-published v1.3.9, not v2.0.0, not the prerelease v1.5.0-rc.1;
//   - a release build's init writes its own tag, @v1.4.2;
//   - a release build's `init --pin sha` writes @<its commit> # v1.4.2, and the action finds
//     the release tagged on that commit (the moved major tag v1 points there too).
//
// The other releases hold a binary that would say so: were one run, the job would fail.
// Every written workflow passes actionlint.
func TestInitWorkflowsDownload(t *testing.T) {
	env := newActEnv(t)
	commit := "c0ffee0123456789abcdef0123456789abcdef01"
	rel := env.release(t, "v1.4.2", commit)
	dev := filepath.Join(t.TempDir(), "dev", "tfgate")
	writeExecutable(t, dev, env.buildTfgate(t, ""))
	released := filepath.Join(t.TempDir(), "release", "tfgate")
	writeExecutable(t, released, rel.Binary)
	action := env.releasedAction(t)
	noGo := pathWithoutGo()

	seed := func(api *githubtest.Server) {
		wrong := func(tag string) {
			script := []byte("#!/bin/sh\necho WRONG-RELEASE-" + tag + "; exit 1\n")
			sum := sha1.Sum([]byte(tag))
			w := testRelease{Version: tag, Commit: hex.EncodeToString(sum[:]), Layout: rel.Layout,
				Archive: tarGz(t, map[string][]byte{"tfgate": script})}
			w.serve(api)
		}
		wrong("v1.3.0")
		rel.serve(api)
		api.SetRef("tfgate/tfgate", "refs/tags/v1", commit)
		wrong("v2.0.0")
		wrong("v1.3.9") // a patch of an older line, published later
		api.AddRelease("tfgate/tfgate", githubtest.Release{Tag: "v1.5.0-rc.1", Prerelease: true})
	}

	for _, tc := range []struct {
		name string
		bin  string
		args []string
		uses string // the `uses:` init writes
		ref  string // the action as act finds it
		log  string // how the action found the release
	}{
		{name: "major tag", bin: dev, uses: "uses: tfgate/tfgate@v1\n", ref: "v1", log: "tfgate v1: the newest release is v1.4.2"},
		{name: "release tag", bin: released, uses: "uses: tfgate/tfgate@v1.4.2\n", ref: "v1.4.2"},
		{name: "sha pin", bin: released, args: []string{"--pin", "sha"}, uses: "uses: tfgate/tfgate@" + commit + " # v1.4.2\n", ref: commit,
			log: "tfgate " + commit + ": the commit of release v1.4.2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			workflows := initWorkflows(t, env, tc.bin, tc.args...)
			plan := workflows["plan.yml"]
			if !strings.Contains(string(plan), tc.uses) {
				t.Fatalf("init wrote plan.yml without %q:\n%s", strings.TrimSpace(tc.uses), plan)
			}
			api := githubtest.New(t, githubtest.WithToken(actToken, githubtest.Token{User: githubtest.Bot, Installation: true}))
			seed(api)
			repo, base, head := pullRequestRepo(t, env.root, recordStepOutputs(t, plan, "plan", "tfgate"), []string{"envs/dev/app/main.tf"})
			api.AddPull("acme/infra", githubtest.Pull{Number: 7, Title: "Grow prod", Author: githubtest.Alice,
				HeadSHA: head, BaseSHA: base, HeadRef: "grow-prod", BaseRef: "main"})
			record := filepath.Join(t.TempDir(), "outputs.json")
			res := env.run(t, actRun{
				Event: "pull_request", Workflow: ".github/workflows/plan.yml", Dir: repo,
				Payload: pullRequestEvent(7, base, head), SHA: head,
				Actions: map[string]string{"tfgate/tfgate@" + tc.ref: action},
				Env: map[string]string{"GITHUB_API_URL": api.URL(), "TFGATE_TERRAFORM": env.terraform,
					"TF_CLI_CONFIG_FILE": "/dev/null", "E2E_RECORD": record},
				Path: noGo,
			})
			logOnFailure(t, res)
			if res.Err != nil {
				t.Errorf("act: %v; want the plan job to succeed", res.Err)
			}
			for _, want := range []string{tc.log, "tfgate v1.4.2: " + rel.archiveName() + " verified (sha256 ", "Plan: 1 project", "Job succeeded"} {
				if !strings.Contains(res.Log, want) {
					t.Errorf("act's log lacks %q", want)
				}
			}
			if m := regexp.MustCompile(`WRONG-RELEASE-\S+|go: command not found`).FindString(res.Log); m != "" {
				t.Errorf("act's log holds %q", m)
			}
			cacheArch := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
			if got := readRecord(t, record).Outputs["binary"]; !strings.HasSuffix(got, "/tfgate/1.4.2/"+cacheArch+"/tfgate") {
				t.Errorf("output binary = %q, want release 1.4.2 from the tool cache", got)
			}
			for _, m := range setupTime.FindAllStringSubmatch(res.Log, -1) {
				t.Logf("%s: setup step %s: %s", tc.name, m[1], m[2])
			}
			checkPublished(t, api, head, []string{"envs/dev/app"}, false)
		})
	}
}

// initWorkflows runs bin's `tfgate init` (with args) in a new repository holding one project
// and returns the workflows it wrote, by name, after checking them with actionlint.
func initWorkflows(t *testing.T, env actEnv, bin string, args ...string) map[string][]byte {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "repo")
	writeFile(t, filepath.Join(dir, "main.tf"), []byte("resource \"terraform_data\" \"x\" {}\n"))
	commitMain(t, dir)
	cmd := exec.Command(bin, append([]string{"-C", dir, "init"}, args...)...)
	cmd.Env = append(os.Environ(), "TFGATE_TERRAFORM="+env.terraform)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("tfgate init %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	t.Logf("tfgate init %s:\n%s", strings.Join(args, " "), out)
	files := map[string][]byte{}
	var paths []string
	for _, name := range setup.Workflows {
		path := filepath.Join(dir, setup.WorkflowDir, name)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		files[name] = data
		paths = append(paths, path)
	}
	lint := testenv.Actionlint(t)
	if out, err := exec.Command(lint, append([]string{"-shellcheck=", "-pyflakes="}, paths...)...).CombinedOutput(); err != nil {
		t.Errorf("actionlint on what init %s wrote: %v\n%s", strings.Join(args, " "), err, out)
	}
	return files
}

func writeExecutable(t *testing.T, path string, data []byte) {
	t.Helper()
	writeFile(t, path, data)
	if err := os.Chmod(path, 0o755); err != nil {
		t.Fatal(err)
	}
}
