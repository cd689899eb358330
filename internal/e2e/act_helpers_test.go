package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tfgate/tfgate/internal/testenv"
	"gopkg.in/yaml.v3"
)

// actTimeout bounds one act run: downloading tfgate, or building it inside the runner
// (version: source: a link when the Go build cache is warm from `make build`, minutes when
// cold), planning, uploading.
const actTimeout = 10 * time.Minute

// actEnv is what an act run needs from this machine; every piece is found or the test fails
// saying how to get it (nothing here is downloaded).
type actEnv struct {
	act       string // the act binary (TFGATE_TEST_ACT, set by the Makefile)
	root      string // this checkout
	actions   string // offline copies of actions/checkout, upload-artifact, download-artifact
	terraform string
	goEnv     []string // the host's Go module and build caches, offline
}

func newActEnv(t *testing.T) actEnv {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	e := actEnv{root: root}
	e.act = os.Getenv("TFGATE_TEST_ACT")
	if e.act == "" {
		e.act = filepath.Join(root, ".bin", "act")
	}
	if _, err := os.Stat(e.act); err != nil {
		testenv.Missing(t, fmt.Errorf("act not found at %s: run `make act` (or `make test`, which installs it)", e.act))
	}
	e.terraform = testenv.Terraform(t)
	// The Makefile names them (TFGATE_TEST_ACTIONS); else ../shared/testdata/actions
	// beside the repository, else .bin/actions (what `make actions` clones).
	e.actions = os.Getenv("TFGATE_TEST_ACTIONS")
	if e.actions == "" {
		e.actions = filepath.Join(filepath.Dir(root), "shared", "testdata", "actions")
		if _, err := os.Stat(e.actions); err != nil {
			e.actions = filepath.Join(root, ".bin", "actions")
		}
	}
	for _, a := range []string{"checkout", "upload-artifact", "download-artifact"} {
		if _, err := os.Stat(filepath.Join(e.actions, a, "action.yml")); err != nil {
			testenv.Missing(t, fmt.Errorf("offline copy of actions/%s not found in %s: run `make actions` (it clones the pinned versions into .bin/actions) or put them in ../shared/testdata/actions", a, e.actions))
		}
	}
	// Steps run on this host: the JavaScript actions with its node, the action's build with
	// its go.
	if _, err := exec.LookPath("node"); err != nil {
		testenv.Missing(t, fmt.Errorf("node not found on PATH: act runs actions/checkout and upload-artifact with the host's node"))
	}
	out, err := exec.Command("go", "env", "GOMODCACHE", "GOCACHE").Output()
	if err != nil {
		t.Fatalf("go env: %v", err)
	}
	dirs := strings.Fields(string(out))
	if len(dirs) != 2 {
		t.Fatalf("go env GOMODCACHE GOCACHE: unexpected output %q", out)
	}
	// The action builds tfgate with the runner's Go. HOME is a temporary directory, so the
	// caches are named; GOPROXY=off proves the build needs nothing from outside the machine.
	e.goEnv = []string{"GOMODCACHE=" + dirs[0], "GOCACHE=" + dirs[1], "GOPROXY=off", "GOFLAGS=-mod=readonly", "GOTOOLCHAIN=local", "GOWORK=off"}
	return e
}

// actionSource copies what the action needs to build tfgate (action.yml, the module files and
// the non-test Go sources) into a directory of its own: act copies a local repository on
// every step that uses it, and the checkout's .bin/ and .git would make that slow.
func (e actEnv) actionSource(t *testing.T) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "tfgate-action")
	for _, f := range []string{"action.yml", "go.mod", "go.sum"} {
		copyFile(t, filepath.Join(e.root, f), filepath.Join(dst, f))
	}
	for _, dir := range []string{"cmd", "internal"} {
		copyTree(t, filepath.Join(e.root, dir), filepath.Join(dst, dir), func(rel string, d fs.DirEntry) bool {
			if d.IsDir() {
				return d.Name() != "testdata"
			}
			return strings.HasSuffix(rel, ".go") && !strings.HasSuffix(rel, "_test.go")
		})
	}
	// tfgate init embeds the example workflows (examples/workflows is a Go package).
	copyTree(t, filepath.Join(e.root, "examples", "workflows"), filepath.Join(dst, "examples", "workflows"), func(rel string, d fs.DirEntry) bool {
		return d.IsDir() || strings.HasSuffix(rel, ".yml") || strings.HasSuffix(rel, ".go") && !strings.HasSuffix(rel, "_test.go")
	})
	return dst
}

// actRun is one `act` invocation.
type actRun struct {
	Event    string // event name, e.g. pull_request
	Workflow string // relative to Dir
	Dir      string // the repository act runs in
	Payload  map[string]any
	SHA      string            // github.sha
	Actions  map[string]string // extra --local-repository entries: "owner/name@ref" → dir
	Env      map[string]string // --env for the workflow
	Secrets  map[string]string // -s: secrets.<name> (GITHUB_TOKEN is always actToken)
	Path     string            // the runner's PATH (default: this process's)
}

// actResult is what a run left behind.
type actResult struct {
	Err       error  // act's exit (non-nil when a job failed)
	Log       string // act's combined output, without terminal escapes
	Artifacts string // act's artifact server directory: <Artifacts>/1/<name>/<name>.zip
	Duration  time.Duration
}

// run executes act with the command line of ../shared/testdata/actions/README.md: self-hosted
// (steps run on this host, no Docker), offline, a fresh HOME, the artifact server on a free
// loopback port, and the three offline actions.
func (e actEnv) run(t *testing.T, r actRun) actResult {
	t.Helper()
	tmp := t.TempDir()
	home := filepath.Join(tmp, "home")
	artifacts := filepath.Join(tmp, "artifacts")
	for _, d := range []string{home, artifacts} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	payload, err := json.Marshal(r.Payload)
	if err != nil {
		t.Fatal(err)
	}
	eventFile := filepath.Join(tmp, "event.json")
	if err := os.WriteFile(eventFile, payload, 0o644); err != nil {
		t.Fatal(err)
	}

	args := []string{r.Event, "-W", r.Workflow, "-e", eventFile,
		"-P", "ubuntu-latest=-self-hosted", "--action-offline-mode", "--no-cache-server",
		"--artifact-server-path", artifacts, "--artifact-server-addr", "127.0.0.1",
		"--artifact-server-port", strconv.Itoa(freePort(t)),
		"--local-repository", "actions/checkout@v4=" + filepath.Join(e.actions, "checkout"),
		"--local-repository", "actions/upload-artifact@v4=" + filepath.Join(e.actions, "upload-artifact"),
		"--local-repository", "actions/download-artifact@v4=" + filepath.Join(e.actions, "download-artifact"),
		"-s", "GITHUB_TOKEN=" + actToken,
		"--env", "SHA_REF=" + r.SHA,
	}
	for repo, dir := range r.Actions {
		args = append(args, "--local-repository", repo+"="+dir)
	}
	for k, v := range r.Env {
		args = append(args, "--env", k+"="+v)
	}
	for k, v := range r.Secrets {
		args = append(args, "-s", k+"="+v)
	}

	timeout := actTimeout
	if dl, ok := t.Deadline(); ok && time.Until(dl)-30*time.Second < timeout {
		// go test's -timeout comes first (make test gives 30 minutes): stop act in time to
		// report what it did.
		if timeout = time.Until(dl) - 30*time.Second; timeout < time.Minute {
			t.Fatalf("go test's -timeout leaves %v for act: run with -timeout 30m (make test does)", time.Until(dl).Round(time.Second))
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.act, args...)
	cmd.Dir = r.Dir
	// act hands its own environment to every step: keep it to what a runner has, so that
	// nothing from the outer CI (GITHUB_*, CI, a real token) leaks into the workflow.
	path := r.Path
	if path == "" {
		path = os.Getenv("PATH")
	}
	cmd.Env = append([]string{"HOME=" + home, "PATH=" + path, "LANG=C.UTF-8", "TMPDIR=" + tmp,
		"GIT_CONFIG_NOSYSTEM=1"}, e.goEnv...)
	var log bytes.Buffer
	cmd.Stdout = &log
	cmd.Stderr = &log
	// Steps run as act's children (bash, tfgate, terraform): a timeout ends the whole group,
	// with SIGTERM first so terraform can release its state lock.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
	cmd.WaitDelay = 15 * time.Second
	start := time.Now()
	err = cmd.Run()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // whatever outlived act
	}
	res := actResult{Err: err, Log: ansiEscape.ReplaceAllString(log.String(), ""), Artifacts: artifacts, Duration: time.Since(start)}
	if ctx.Err() != nil {
		t.Fatalf("act did not finish within %v; its log:\n%s", timeout, tail(res.Log, 150))
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("run act: %v", err)
	}
	t.Logf("act %s %s: %v", r.Event, r.Workflow, res.Duration.Round(time.Second))
	return res
}

// recordStepOutputs appends a step to job that writes the outcome and outputs of step stepID
// as JSON into the file named by $E2E_RECORD, whatever happened before it: the test reads the
// outputs the way a later step of a user's workflow would.
func recordStepOutputs(t *testing.T, workflow []byte, job, stepID string) []byte {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal(workflow, &doc); err != nil {
		t.Fatalf("parse workflow: %v", err)
	}
	steps := mapValue(mapValue(mapValue(doc.Content[0], "jobs"), job), "steps")
	if steps == nil || steps.Kind != yaml.SequenceNode {
		t.Fatalf("workflow has no jobs.%s.steps", job)
	}
	var step yaml.Node
	src := fmt.Sprintf(`name: Record the outputs (e2e)
if: always()
env:
  STEP: ${{ toJSON(steps.%s) }}
run: printf '%%s' "$STEP" > "$E2E_RECORD"
`, stepID)
	if err := yaml.Unmarshal([]byte(src), &step); err != nil {
		t.Fatal(err)
	}
	steps.Content = append(steps.Content, step.Content[0])
	out, err := yaml.Marshal(&doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func mapValue(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// git runs git in dir with a hermetic configuration and returns its trimmed output.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=Alice", "GIT_AUTHOR_EMAIL=alice@example.com",
		"GIT_COMMITTER_NAME=Alice", "GIT_COMMITTER_EMAIL=alice@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// copyTree copies the regular files under src that keep accepts (and the directories it
// keeps) to dst.
func copyTree(t *testing.T, src, dst string, keep func(rel string, d fs.DirEntry) bool) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if rel != "." && !keep(rel, d) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		copyFile(t, path, filepath.Join(dst, rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dst, data)
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// ansiEscape matches the colour and cursor sequences tfgate writes to the terminal act gives
// its steps.
var ansiEscape = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]`)

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{fmt.Sprintf("[… %d lines before]", len(lines)-n)}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}
