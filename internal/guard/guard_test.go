package guard

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// requireGuard skips t where the kernel cannot guard, unless TFGATE_REQUIRE_READ_GUARD is
// set (make test sets it): there, an unavailable guard fails the test.
func requireGuard(t testing.TB) {
	t.Helper()
	if _, err := Available(); err != nil {
		if os.Getenv("TFGATE_REQUIRE_READ_GUARD") != "" {
			t.Fatalf("TFGATE_REQUIRE_READ_GUARD is set, and the read guard is not available: %v", err)
		}
		t.Skipf("read guard not available: %v", err)
	}
}

// result is what a started process left.
type result struct {
	stdout, stderr string
	code           int
}

// guarded runs target with args through Wrap's re-exec, in dir, and again through Start:
// both must guard alike (the same exit, output and errors).
func guarded(t *testing.T, spec Spec, dir, target string, args ...string) result {
	t.Helper()
	path, env, err := Wrap(spec, target)
	if err != nil {
		t.Fatal(err)
	}
	wrapped := run(t, dir, env, path, args...)
	if started := started(t, spec, dir, target, args...); started != wrapped {
		t.Errorf("%s %q: through Start %+v, through Wrap %+v; want the same", target, args, started, wrapped)
	}
	return wrapped
}

// started runs target with args through Start, in dir.
func started(t *testing.T, spec Spec, dir, target string, args ...string) result {
	t.Helper()
	cmd := exec.Command(target, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := Start(spec, cmd); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	return result{stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()}
}

// Start restricts the process it starts, never the caller: this process still reads the
// checkout afterwards, from every thread; a spec it cannot enforce starts nothing.
func TestStartLeavesTheCallerFree(t *testing.T) {
	requireGuard(t)
	l := newLayout(t)
	spec := Spec{Deny: []string{l.repo}, Allow: []string{l.scoped}}
	secret := filepath.Join(l.repo, "secret.txt")
	for range 20 { // threads come and go: none of them may be left restricted
		if r := started(t, spec, l.scoped, "/bin/cat", secret); r.code == 0 {
			t.Fatalf("cat %s through Start: exit 0, stdout %q", secret, r.stdout)
		}
	}
	done := make(chan error, 8)
	for range cap(done) {
		go func() { _, err := os.ReadFile(secret); done <- err }()
	}
	for range cap(done) {
		if err := <-done; err != nil {
			t.Errorf("the caller cannot read the checkout any more: %v", err)
		}
	}
	if r := run(t, l.scoped, nil, "/bin/cat", secret); r.code != 0 {
		t.Errorf("an unguarded start from the caller: exit %d, stderr %q", r.code, r.stderr)
	}
	marker := filepath.Join(l.outside, "ran")
	cmd := exec.Command("/bin/touch", marker)
	if err := Start(Spec{Deny: []string{l.repo}, Allow: []string{"/"}}, cmd); err == nil || !strings.Contains(err.Error(), "read guard") {
		t.Errorf("Start with an allowed ancestor = %v, want refused", err)
	}
	if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the target ran (%v)", err)
	}
}

func run(t *testing.T, dir string, env []string, path string, args ...string) result {
	t.Helper()
	cmd := exec.Command(path, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	return result{stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()}
}

// Every path to the checkout is refused by the kernel, however it is spelled, and for
// whatever the guarded process starts.
func TestGuardRefuses(t *testing.T) {
	requireGuard(t)
	l := newLayout(t)
	t.Chdir(l.repo) // this process's cwd, reachable as /proc/<pid>/cwd
	spec := Spec{Deny: []string{l.repo}, Allow: []string{l.scoped}}
	cases := []struct{ name, path string }{
		{"absolute path", filepath.Join(l.repo, "secret.txt")},
		{"relative path from an allowed cwd", "../secret.txt"},
		{"the git directory", filepath.Join(l.repo, ".git", "config")},
		{"a link from an allowed directory", filepath.Join(l.outside, "link")},
		{"a link onto an ancestor", filepath.Join(l.base, "up", "repo", "secret.txt")},
		{"the parent's cwd", fmt.Sprintf("/proc/%d/cwd/secret.txt", os.Getpid())},
		{"its own cwd's parent", "/proc/self/cwd/../secret.txt"},
		{"its own root", "/proc/self/root" + filepath.Join(l.repo, "secret.txt")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := guarded(t, spec, l.scoped, "/bin/cat", c.path)
			if r.code == 0 || !strings.Contains(r.stderr, "Permission denied") || strings.Contains(r.stdout, "secret") {
				t.Errorf("cat %s: exit %d, stdout %q, stderr %q; want refused", c.path, r.code, r.stdout, r.stderr)
			}
		})
	}
	t.Run("a grandchild", func(t *testing.T) {
		r := guarded(t, spec, l.scoped, "/bin/sh", "-c", "/bin/cat ../secret.txt; ls ..")
		if r.code == 0 || strings.Count(r.stderr, "Permission denied") != 2 || r.stdout != "" {
			t.Errorf("sh → cat, ls: exit %d, stdout %q, stderr %q; want both refused", r.code, r.stdout, r.stderr)
		}
	})
}

// What is allowed stays usable: the allowed tree below the checkout in full, and the rest
// of the machine; the guard's variable does not reach the target.
func TestGuardAllows(t *testing.T) {
	requireGuard(t)
	l := newLayout(t)
	spec := Spec{Deny: []string{l.repo}, Allow: []string{l.scoped}}
	script := `cat work.txt && echo made > made.txt && cat made.txt && rm made.txt &&
cat ` + filepath.Join(l.outside, "other.txt") + ` && head -c 0 /etc/passwd && echo "${TFGATE_READ_GUARD-unset}"`
	r := guarded(t, spec, l.scoped, "/bin/sh", "-c", script)
	if want := "work\nmade\nother\nunset\n"; r.code != 0 || r.stdout != want {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 0, stdout %q", r.code, r.stdout, r.stderr, want)
	}
}

// A spec the guard cannot enforce stops the start: exit 126, the reason on stderr, and the
// target never runs.
func TestGuardBadSpec(t *testing.T) {
	requireGuard(t)
	l := newLayout(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(l.outside, "ran")
	specs := map[string]string{
		"not JSON":       `{deny`,
		"empty":          ``,
		"relative deny":  `{"deny":["repo"],"target":"/bin/sh"}`,
		"missing deny":   `{"deny":["` + filepath.Join(l.base, "gone") + `"],"target":"/bin/sh"}`,
		"allow holds it": `{"deny":["` + l.repo + `"],"allow":["/"],"target":"/bin/sh"}`,
	}
	for name, spec := range specs {
		t.Run(name, func(t *testing.T) {
			r := run(t, l.outside, []string{envVar + "=" + spec}, self, "-c", "touch "+marker)
			if r.code != ExitCode || !strings.HasPrefix(r.stderr, "tfgate: read guard: ") {
				t.Errorf("exit %d, stderr %q; want exit %d and the reason", r.code, r.stderr, ExitCode)
			}
			if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the target ran (%v)", err)
			}
		})
	}
}

func TestWrapRefuses(t *testing.T) {
	requireGuard(t)
	l := newLayout(t)
	if _, _, err := Wrap(Spec{Deny: []string{l.repo}, Allow: []string{l.base}}, "/bin/sh"); err == nil || !strings.Contains(err.Error(), "holds denied") {
		t.Errorf("Wrap with an allowed ancestor = %v, want refused", err)
	}
	if _, _, err := Wrap(Spec{Deny: []string{l.repo}}, "sh"); err == nil {
		t.Error("Wrap with a relative target: no error")
	}
}

// A read-only directory can be read, listed and run from, by the guarded process and what
// it starts, and never changed; what lies beside it stays usable in full.
func TestGuardReadOnly(t *testing.T) {
	requireGuard(t)
	l := newLayout(t)
	cache := filepath.Join(l.base, "cache")
	if err := os.MkdirAll(filepath.Join(cache, "pkg"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(cache, "pkg", "data.txt"), "data\n", 0o644)
	writeFile(t, filepath.Join(cache, "pkg", "tool"), "#!/bin/sh\necho tool ran\n", 0o755)
	writeFile(t, filepath.Join(l.outside, "new.txt"), "new\n", 0o644)
	spec := Spec{Deny: []string{l.repo}, ReadOnly: []string{cache}}
	t.Chdir(filepath.Join(cache, "pkg")) // the guarded process starts there

	read := "cat data.txt && ls && ./tool && cd " + l.outside + " && echo n > n.txt && cat n.txt && rm n.txt"
	if r := guarded(t, spec, ".", "/bin/sh", "-c", read); r.code != 0 || r.stdout != "data\ndata.txt\ntool\ntool ran\nn\n" {
		t.Errorf("read, list, run, and write beside: exit %d, stdout %q, stderr %q; want them all", r.code, r.stdout, r.stderr)
	}
	changes := map[string]string{
		"write":                     "echo x >> data.txt",
		"truncate":                  ": > data.txt",
		"create":                    "echo x > made.txt",
		"create a directory":        "mkdir made",
		"link":                      "ln -s data.txt made",
		"remove":                    "rm -f data.txt",
		"rename inside":             "mv -f data.txt tool",
		"rename over, from outside": "mv -f " + filepath.Join(l.outside, "new.txt") + " tool",
		"a grandchild writes":       "sh -c 'echo x >> tool'",
	}
	for name, script := range changes {
		t.Run(name, func(t *testing.T) {
			r := guarded(t, spec, ".", "/bin/sh", "-c", script)
			if r.code == 0 {
				t.Errorf("%s: exit 0, stderr %q; want refused", script, r.stderr)
			}
		})
	}
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile("data.txt")
	tool, _ := os.ReadFile("tool")
	if len(entries) != 2 || string(data) != "data\n" || string(tool) != "#!/bin/sh\necho tool ran\n" {
		t.Errorf("the read-only directory changed: %d entries, data.txt %q, tool %q", len(entries), data, tool)
	}
}

func writeFile(t *testing.T, path, body string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), mode); err != nil {
		t.Fatal(err)
	}
}
