package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/tfgate/tfgate/internal/cli"
	"github.com/tfgate/tfgate/internal/terraform"
	"github.com/tfgate/tfgate/internal/testenv"
	"github.com/tfgate/tfgate/internal/testprovider"
)

// TestMain lets testscript run this test binary as the real `tfgate` command.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"tfgate": func() { os.Exit(cli.Main()) },
	})
}

// scriptDir is where TestScripts finds its scripts; the kill campaign points it at the
// trials it writes (killcampaign_test.go).
var scriptDir = "testdata/script"

// TestScripts runs the end-to-end specifications in testdata/script: the real binary, the
// real terraform (pinned, from .bin/; or the terraform or tofu $TFGATE_TEST_TERRAFORM names),
// real git repositories. Scripts see the binary's flavour and version as $TF_FLAVOR and
// $TF_VERSION, and test the flavour with the conditions [tofu] and [terraform].
func TestScripts(t *testing.T) {
	repoRoot := testenv.RepoRoot(t)
	tf := testenv.Terraform(t)
	bin, err := terraform.Resolve(context.Background(), terraform.ResolveOptions{Override: tf, PathEnv: "/usr/bin:/bin"})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("scripts run %s", bin)
	// fakecloud, the test provider, from the filesystem mirror `make fakecloud` builds.
	plugins := testenv.Plugins(t)
	// and as a registry serves it, a zip, which terraform unpacks into the plugin cache
	packed, err := testprovider.WritePacked(plugins, filepath.Join(t.TempDir(), "packed"))
	if err != nil {
		t.Fatal(err)
	}
	actionlint := testenv.Actionlint(t) // for scripts checking the workflows tfgate init writes
	scriptsT = t
	testscript.Run(t, testscript.Params{
		Dir:                 scriptDir,
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			home := filepath.Join(env.WorkDir, ".home")
			env.Setenv("HOME", home)
			env.Setenv("XDG_CACHE_HOME", filepath.Join(home, ".cache"))
			env.Setenv("TFGATE_TERRAFORM", tf)
			env.Setenv("TF_CLI_CONFIG_FILE", "/dev/null")
			env.Setenv("TF_TERRAFORM", tf) // for scripts that unset TFGATE_TERRAFORM and put it back
			env.Setenv("TF_FLAVOR", bin.Flavor)
			env.Setenv("TF_VERSION", bin.Version.String())
			env.Setenv("NO_COLOR", "")
			// Scripts say themselves when they play CI; the outer CI must not leak in.
			env.Setenv("CI", "")
			env.Setenv("GITHUB_ACTIONS", "")
			env.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			env.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
			env.Setenv("GIT_AUTHOR_NAME", "Test")
			env.Setenv("GIT_AUTHOR_EMAIL", "test@example.com")
			env.Setenv("GIT_COMMITTER_NAME", "Test")
			env.Setenv("GIT_COMMITTER_EMAIL", "test@example.com")
			env.Setenv("EXAMPLES", filepath.Join(repoRoot, "examples"))
			env.Setenv("ACTIONLINT", actionlint)
			// BINDIR holds only the commands testscript installed (tfgate): scripts set
			// PATH=$BINDIR to run tfgate on a machine without terraform.
			if first, _, _ := strings.Cut(env.Getenv("PATH"), string(os.PathListSeparator)); first != "" {
				env.Setenv("BINDIR", first)
			}
			// Scripts that use fakecloud set TF_CLI_CONFIG_FILE=$FAKECLOUD_TFRC.
			tfrc := filepath.Join(env.WorkDir, ".fakecloud.tfrc")
			if err := os.WriteFile(tfrc, []byte(testprovider.CLIConfig(plugins)), 0o644); err != nil {
				return err
			}
			env.Setenv("FAKECLOUD_TFRC", tfrc)
			// Scripts that need the packed mirror set TF_CLI_CONFIG_FILE=$FAKECLOUD_PACKED_TFRC;
			// the package, $FAKECLOUD_PACKAGE, is a link of their own to remove or replace.
			if err := packedMirror(env, packed); err != nil {
				return err
			}
			return os.MkdirAll(home, 0o755)
		},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case terraform.FlavorTerraform, terraform.FlavorTofu:
				return bin.Flavor == cond, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"copydir":    cmdCopyDir,
			"initrepo":   cmdInitRepo,
			"jsonfield":  cmdJSONField,
			"exitcode":   cmdExitCode,
			"waitfile":   cmdWaitFile,
			"waitgrep":   cmdWaitGrep,
			"mkfifo":     cmdMkfifo,
			"signalexit": cmdSignalExit,
			"noleak":     cmdNoLeak,
			"nocommands": cmdNoCommands,
			"nomarkers":  cmdNoMarkers,
			"github":     cmdGitHub,
			"webhook":    cmdWebhook,
			"pg":         cmdPG,
			"promcheck":  cmdPromCheck,
			"forge":      cmdForgeBundle,
			"procs":      cmdProcs,
			"killtf":     cmdKillTF,
			"campaign":   cmdCampaign,
		},
	})
}

// packedMirror gives a script a packed fakecloud mirror of its own, whose package is a hard
// link to the one built for the run (a copy where links fail).
func packedMirror(env *testscript.Env, packed testprovider.Packed) error {
	dir := filepath.Join(env.WorkDir, ".packed")
	rel, err := filepath.Rel(packed.Dir, packed.Zip)
	if err != nil {
		return err
	}
	zip := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(zip), 0o755); err != nil {
		return err
	}
	if err := os.Link(packed.Zip, zip); err != nil {
		data, err := os.ReadFile(packed.Zip)
		if err == nil {
			err = os.WriteFile(zip, data, 0o644)
		}
		if err != nil {
			return err
		}
	}
	tfrc := filepath.Join(env.WorkDir, ".packed.tfrc")
	if err := os.WriteFile(tfrc, []byte(testprovider.CLIConfig(dir)), 0o644); err != nil {
		return err
	}
	env.Setenv("FAKECLOUD_PACKED_TFRC", tfrc)
	env.Setenv("FAKECLOUD_PACKAGE", zip)
	return nil
}

// copydir SRC DST copies a directory tree (skipping .terraform dirs).
func cmdCopyDir(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: copydir SRC DST")
	}
	src, dst := ts.MkAbs(args[0]), ts.MkAbs(args[1])
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() && d.Name() == ".terraform" {
			return filepath.SkipDir
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	ts.Check(err)
}

// initrepo DIR makes DIR a git repository with one commit on main, pushed to a bare
// "origin" whose HEAD is main — like a fresh CI checkout.
func cmdInitRepo(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: initrepo DIR")
	}
	dir := ts.MkAbs(args[0])
	origin := dir + ".origin.git"
	run := func(dir string, args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = os.Environ()
		for _, k := range []string{"HOME", "GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_GLOBAL", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"} {
			cmd.Env = append(cmd.Env, k+"="+ts.Getenv(k))
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			ts.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	run(dir, "init", "-q", "-b", "main")
	run(dir, "add", "-A")
	run(dir, "commit", "-q", "-m", "initial")
	run(filepath.Dir(dir), "init", "-q", "--bare", "-b", "main", origin)
	run(dir, "remote", "add", "origin", origin)
	run(dir, "push", "-q", "origin", "main")
	run(dir, "remote", "set-head", "origin", "main")
}

// exitcode N PROG ARGS... runs PROG and checks its exit code is exactly N; stdout and stderr
// are then available to the stdout/stderr commands as after exec.
func cmdExitCode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exitcode N PROG [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exitcode: %q is not a number", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exitcode: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}

// waitfile FILE [TIMEOUT] waits until FILE exists (default timeout 60s).
func cmdWaitFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: waitfile FILE [TIMEOUT]")
	}
	timeout := time.Minute
	if len(args) == 2 {
		d, err := time.ParseDuration(args[1])
		ts.Check(err)
		timeout = d
	}
	path := ts.MkAbs(args[0])
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return
		}
	}
	ts.Fatalf("%s did not appear within %s", args[0], timeout)
}

// waitgrep FILE REGEXP waits (up to two minutes) until FILE holds a line matching REGEXP:
// what a background command prints once it reaches a state, never a fixed sleep.
func cmdWaitGrep(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: waitgrep FILE REGEXP")
	}
	re, err := regexp.Compile("(?m)" + args[1])
	ts.Check(err)
	path := ts.MkAbs(args[0])
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if data, err := os.ReadFile(path); err == nil && re.Match(data) {
			return
		}
	}
	data, _ := os.ReadFile(path)
	ts.Fatalf("%s holds no line matching %q within 2m:\n%s", args[0], args[1], data)
}

// jsonfield FILE PATH WANT checks one value of a JSON document; PATH is dot-separated with
// numeric indexes for arrays (projects.0.summary.add). "length" as the last element gives
// the length of an array or object. A WANT of "re:PATTERN" matches a regular expression.
func cmdJSONField(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: jsonfield FILE PATH WANT")
	}
	var doc any
	if err := json.Unmarshal([]byte(ts.ReadFile(args[0])), &doc); err != nil {
		ts.Fatalf("%s is not JSON: %v", args[0], err)
	}
	cur := doc
	for _, part := range strings.Split(args[1], ".") {
		switch v := cur.(type) {
		case map[string]any:
			if part == "length" {
				cur = float64(len(v))
				continue
			}
			next, ok := v[part]
			if !ok {
				ts.Fatalf("%s: no key %q", args[1], part)
			}
			cur = next
		case []any:
			if part == "length" {
				cur = float64(len(v))
				continue
			}
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(v) {
				ts.Fatalf("%s: bad index %q (len %d)", args[1], part, len(v))
			}
			cur = v[i]
		default:
			ts.Fatalf("%s: cannot descend into %T at %q", args[1], cur, part)
		}
	}
	got := fmt.Sprint(cur)
	if s, ok := cur.(string); ok {
		got = s
	}
	match := got == args[2]
	if pattern, ok := strings.CutPrefix(args[2], "re:"); ok {
		match = regexp.MustCompile(pattern).MatchString(got)
	}
	if match == neg {
		ts.Fatalf("%s %s = %q, want %s%q", args[0], args[1], got, map[bool]string{true: "not ", false: ""}[neg], args[2])
	}
}

// mkfifo NAME makes a named pipe: a file tfgate blocks on when it reads it, with nothing
// running that a cancelled context could stop.
func cmdMkfifo(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: mkfifo NAME")
	}
	ts.Check(syscall.Mkfifo(ts.MkAbs(args[0]), 0o600))
}

// signalexit SIGNAL CODE FIFO ARGS... runs tfgate ARGS, waits until it opens the named pipe
// FIFO for reading (so it is running and blocked), sends it SIGNAL (INT or TERM), and checks
// that it exits with CODE within 20s. Its stderr is written to signalexit.stderr, since only
// exec sets what the stderr command reads.
func cmdSignalExit(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 4 {
		ts.Fatalf("usage: signalexit SIGNAL CODE FIFO ARGS...")
	}
	sig := map[string]os.Signal{"INT": os.Interrupt, "TERM": syscall.SIGTERM}[args[0]]
	if sig == nil {
		ts.Fatalf("signalexit: unknown signal %q; use INT or TERM", args[0])
	}
	want, err := strconv.Atoi(args[1])
	ts.Check(err)
	cmd := exec.Command(filepath.Join(ts.Getenv("BINDIR"), "tfgate"), args[3:]...)
	cmd.Dir = ts.MkAbs(".")
	cmd.Env = os.Environ()
	for _, k := range []string{"HOME", "XDG_CACHE_HOME", "PATH", "TFGATE_TERRAFORM", "TF_CLI_CONFIG_FILE", "NO_COLOR", "CI", "GITHUB_ACTIONS"} {
		cmd.Env = append(cmd.Env, k+"="+ts.Getenv(k))
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	ts.Check(cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	// Opening the pipe for writing returns once tfgate has opened it for reading; the open
	// end then keeps tfgate waiting for data rather than reading the end of the file.
	opened := make(chan *os.File, 1)
	go func() {
		if f, err := os.OpenFile(ts.MkAbs(args[2]), os.O_WRONLY, 0); err == nil {
			opened <- f
		}
	}()
	select {
	case f := <-opened:
		defer f.Close()
	case err := <-exited:
		ts.Fatalf("tfgate exited before opening %s: %v\n%s", args[2], err, stderr.String())
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		ts.Fatalf("tfgate did not open %s within a minute", args[2])
	}
	ts.Check(cmd.Process.Signal(sig))
	select {
	case err := <-exited:
		got := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			got = ee.ExitCode()
		} else if err != nil {
			ts.Fatalf("signalexit: %v", err)
		}
		ts.Check(os.WriteFile(ts.MkAbs("signalexit.stderr"), []byte(stderr.String()), 0o644))
		if got != want {
			ts.Fatalf("tfgate exited %d after SIG%s, want %d\n%s", got, args[0], want, stderr.String())
		}
	case <-time.After(20 * time.Second): // generous: "at once" on a loaded machine
		cmd.Process.Kill()
		ts.Fatalf("tfgate did not exit within 20s of SIG%s\n%s", args[0], stderr.String())
	}
}
