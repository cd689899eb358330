package pipeline

import (
	"archive/zip"
	"bytes"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/ci"
	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/github/githubtest"
	"github.com/tfgate/tfgate/internal/secret"
	"github.com/tfgate/tfgate/internal/stage"
	"github.com/tfgate/tfgate/internal/testenv"
)

// The runners' tests (run_plan_test.go, run_gate_test.go, run_apply_test.go) share one
// fixture: a repository of two projects on a fake GitHub, and a fake terraform.
//
// RunPlan and RunApply resolve terraform themselves (their requests take no runner
// factory, unlike stage.PlanOptions.NewRunner), so the fake is a shell script given as
// TFGATE_TERRAFORM (Terraform.Override), as internal/terraform's own tests do: it uses
// shell builtins only, runs with any PATH, and logs each command it is asked.

const runRepo = "acme/infra"

// runFakePlanJSON is what the fake's `show -json` prints of a plan: one create.
const runFakePlanJSON = `{"format_version":"1.2","terraform_version":"1.5.7","resource_changes":[{"address":"terraform_data.a","mode":"managed","type":"terraform_data","name":"a","change":{"actions":["create"],"before":null,"after":{"input":"v2"},"after_unknown":{},"before_sensitive":false,"after_sensitive":{}}}]}`

// fakeTerraformScript is the fake, a format of three arguments: the log, the plan file (as
// printf's escapes) and what show prints. It answers `version -json` as terraform 1.5.7;
// init succeeds; plan writes the plan file to -out and exits 2 (changes), unless the
// project holds PLAN_FAILS, when it prints terraform's error and exits 1; the only
// workspace is default; apply succeeds. Each command but version and workspace list
// appends "<command> <project dir's name>" to the log.
const fakeTerraformScript = `#!/bin/sh
log=%q
case "$1" in
version) echo '{"terraform_version":"1.5.7","platform":"linux_amd64","provider_selections":{}}' ;;
init) echo "init ${PWD##*/}" >>"$log" ;;
plan)
	echo "plan ${PWD##*/}" >>"$log"
	if [ -e PLAN_FAILS ]; then echo 'Error: Unsupported argument in main.tf' >&2; exit 1; fi
	for a in "$@"; do case "$a" in -out=*) printf '%s' >"${a#-out=}" ;; esac; done
	exit 2 ;;
show) echo "show ${PWD##*/}" >>"$log"; echo '%s' ;;
workspace)
	if [ "$2" = list ]; then echo '* default'; exit 0; fi
	echo "workspace $2 ${PWD##*/}" >>"$log" ;;
apply) echo "apply ${PWD##*/}" >>"$log" ;;
*) echo "$1 ${PWD##*/}" >>"$log" ;;
esac
`

// fakePlanFile is a plan file as apply reads it: a zip of terraform's tfplan (a normal plan
// to the local backend, localTFPlan) and the configuration snapshot of a root module whose
// only file is main.tf.
func fakePlanFile(t *testing.T, mainTF string) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, f := range []struct{ name, body string }{
		{"tfplan", localTFPlan},
		{"tfconfig/modules.json", `[{"Key":"","Source":"","Dir":"."}]`},
		{"tfconfig/m-/main.tf", mainTF},
	} {
		fw, err := w.Create(f.name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fw.Write([]byte(f.body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// localTFPlan is the tfplan entry of a normal plan to the local backend with no settings, in
// the default workspace, as terraform writes it (planproto Plan field 13: Backend{type,
// config: DynamicValue{msgpack: {path: nil, workspace_dir: nil}}, workspace}).
const localTFPlan = "\x6a\x2a" + "\x0a\x05local" + "\x12\x18\x0a\x16\x82\xa4path\xc0\xadworkspace_dir\xc0" + "\x1a\x07default"

// printfEscapes is data as a printf format that prints it: every byte an octal escape.
func printfEscapes(data []byte) string {
	var b strings.Builder
	for _, c := range data {
		fmt.Fprintf(&b, "\\%03o", c)
	}
	return b.String()
}

// appV2 is app/main.tf on the branch: what its plan files hold.
const appV2 = "resource \"terraform_data\" \"a\" {\n  input = \"v2\"\n}\n"

// runFixture is a repository with the projects app and db on main (base) and, checked
// out, the branch change (head) that changes app only; pull request PR of dave proposes
// it on the fake GitHub, where bob, carol and dave have write access.
type runFixture struct {
	root       string
	base, head string
	tf         string // the fake terraform
	tfLog      string // what it was asked
	gh         *githubtest.Server
	pr         int
}

// newRunFixture builds the fixture; extra are more files of the base commit (a
// .tfgate.yaml, policies).
func newRunFixture(t *testing.T, extra map[string]string) *runFixture {
	t.Helper()
	files := map[string]string{
		".gitignore":  ".terraform/\n",
		"app/main.tf": "resource \"terraform_data\" \"a\" {\n  input = \"v1\"\n}\n",
		"db/main.tf":  "resource \"terraform_data\" \"b\" {}\n",
	}
	maps.Copy(files, extra)
	fx := &runFixture{root: testenv.WriteTree(t, files)}
	testenv.Git(t, fx.root, "init", "-q", "-b", "main")
	testenv.Git(t, fx.root, "add", "-A")
	testenv.Git(t, fx.root, "commit", "-q", "-m", "initial")
	fx.base = fx.rev(t, "HEAD")
	testenv.Git(t, fx.root, "checkout", "-q", "-b", "change")
	fx.commit(t, "app/main.tf", appV2)
	fx.head = fx.rev(t, "HEAD")

	bin := t.TempDir()
	fx.tfLog = filepath.Join(bin, "calls.log")
	fx.tf = filepath.Join(bin, "terraform")
	script := fmt.Sprintf(fakeTerraformScript, fx.tfLog, printfEscapes(fakePlanFile(t, appV2)), runFakePlanJSON)
	if err := os.WriteFile(fx.tf, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}

	fx.gh = githubtest.New(t)
	for _, login := range []string{"bob", "carol", "dave"} {
		fx.gh.SetPermission(runRepo, login, "write")
	}
	fx.openPull(false)
	return fx
}

// openPull opens the fixture's pull request of the branch's current head (from a fork or
// not): dave proposes it.
func (fx *runFixture) openPull(fork bool) {
	fx.pr = fx.gh.AddPull(runRepo, githubtest.Pull{Author: runUser("dave"), HeadSHA: fx.head, BaseSHA: fx.base, HeadRef: "change", BaseRef: "main", Fork: fork})
}

// commit writes a file on the branch checked out and commits it.
func (fx *runFixture) commit(t *testing.T, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(fx.root, filepath.FromSlash(name)), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	testenv.Git(t, fx.root, "add", "-A")
	testenv.Git(t, fx.root, "commit", "-q", "-m", "change "+name)
}

// rev is the commit rev names in the fixture's repository.
func (fx *runFixture) rev(t *testing.T, rev string) string {
	t.Helper()
	out, err := exec.Command("git", "-C", fx.root, "rev-parse", rev).Output()
	if err != nil {
		t.Fatalf("git rev-parse %s: %v", rev, err)
	}
	return strings.TrimSpace(string(out))
}

// review adds login's review of state on the pull request's head.
func (fx *runFixture) review(login, state string) {
	fx.gh.AddReview(runRepo, fx.pr, githubtest.Review{User: runUser(login), State: state, CommitID: fx.head})
}

// calls is what the fake terraform was asked, in order.
func (fx *runFixture) calls(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(fx.tfLog)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(data)), "\n")
}

// resetCalls forgets what the fake terraform was asked so far.
func (fx *runFixture) resetCalls(t *testing.T) {
	t.Helper()
	if err := os.Remove(fx.tfLog); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
}

// github is the run's GitHub side for event (its repository filled in), with a
// GITHUB_TOKEN.
func (fx *runFixture) github(t *testing.T, ev ci.Event) *GitHubRun {
	t.Helper()
	api, err := github.New(github.Options{BaseURL: fx.gh.URL(), Token: githubtest.InstallationToken, Backoff: 1})
	if err != nil {
		t.Fatal(err)
	}
	ev.Owner, ev.Repo = "acme", "infra"
	return &GitHubRun{API: api, Event: ev}
}

// pullEvent is the pull_request event of the fixture's pull request.
func (fx *runFixture) pullEvent() ci.Event {
	return ci.Event{Name: "pull_request", Action: "synchronize", PRNumber: fx.pr, HeadSHA: fx.head, BaseSHA: fx.base, HeadRef: "change", BaseRef: "main", Author: "dave"}
}

// loadConfig is the repository's configuration as the commands load it.
func (fx *runFixture) loadConfig(t *testing.T) *config.Config {
	t.Helper()
	cfg, err := config.Load(t.Context(), fx.root, "", false)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// env is what every runner of the fixture shares: its repository and configuration, the
// fake terraform, one project at a time, warnings in the test's log.
func (fx *runFixture) env(t *testing.T) stage.Env {
	return stage.Env{
		Root: fx.root, Config: fx.loadConfig(t), Parallel: 1,
		Terraform:    stage.TerraformOptions{Override: fx.tf},
		TerraformEnv: map[string]string{"TF_IN_AUTOMATION": "1"},
		Masker:       secret.NewMasker(nil),
		Warn:         func(w string) { t.Logf("warning: %s", w) },
	}
}

// runUser is the fake GitHub's account of login.
func runUser(login string) githubtest.User {
	return githubtest.User{Login: login, ID: int64(len(login)) * 13, Type: "User"}
}

// lastStatus is the latest commit status of context on sha (zero: none).
func lastStatus(s *githubtest.Server, sha, context string) githubtest.Status {
	var last githubtest.Status
	for _, st := range s.Statuses(runRepo, sha) {
		if st.Context == context {
			last = st
		}
	}
	return last
}

// merge merges the branch into main with a merge commit, checked out, and merges the pull
// request with it on the fake GitHub; it returns the merge commit.
func (fx *runFixture) merge(t *testing.T) string {
	t.Helper()
	testenv.Git(t, fx.root, "checkout", "-q", "main")
	testenv.Git(t, fx.root, "merge", "-q", "--no-ff", "-m", "Merge pull request from change", "change")
	merge := fx.rev(t, "HEAD")
	fx.gh.MergePull(runRepo, fx.pr, merge)
	return merge
}
