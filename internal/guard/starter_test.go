package guard

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// A guarded process cannot reach the process that started it through /proc: not its
// environment as it started (the plan key, the token), not its memory, through the main
// thread or any other (Start leaves the main thread restricted, in the child's own domain,
// when its goroutine ran there), whichever way it was started. A process with
// CAP_SYS_PTRACE (root) opens them whatever the guard does, so as root the test runs again,
// as nobody, a copy of this binary that nobody can run.
func TestGuardKeepsTheStarterClosed(t *testing.T) {
	requireGuard(t)
	if os.Geteuid() == 0 {
		asNobody(t, "^TestGuardKeepsTheStarterClosed$")
		return
	}
	l := newLayout(t)
	spec := Spec{Deny: []string{l.repo}, Allow: []string{l.scoped}}
	self := "/proc/" + strconv.Itoa(os.Getpid())
	script := `for f in ` + self + `/environ ` + self + `/mem ` + self + `/task/*/mem ` + self + `/task/*/environ; do
	(: < "$f") 2>/dev/null && echo "$f"
done; echo checked`
	for range 3 { // the first Start may be the one that restricts the main thread
		if r := guarded(t, spec, l.scoped, "/bin/sh", "-c", script); r.stdout != "checked\n" {
			t.Fatalf("the guarded process opened its starter's %q (stderr %q); want none", r.stdout, r.stderr)
		}
	}
}

// asNobody runs the tests of run in a copy of this test binary as user nobody, and fails
// t with their output if they fail.
func asNobody(t *testing.T, run string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// Not t.TempDir: its parent is its owner's alone. The temporary directory itself is
	// left as it is: nobody must be able to reach it already (/tmp).
	dir, err := os.MkdirTemp("", "guard-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	copied := filepath.Join(dir, "guard.test")
	syscall.ForkLock.RLock() // no process started meanwhile inherits it open ("text file busy")
	err = os.WriteFile(copied, bin, 0o755)
	syscall.ForkLock.RUnlock()
	if err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o1777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(tmp, 0o1777); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(copied, "-test.run="+run, "-test.count=1", "-test.v")
	cmd.Dir, cmd.Env = tmp, append(os.Environ(), "TMPDIR="+tmp, "HOME="+tmp)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: "+strings.Trim(run, "^$")) {
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
}

// Many Starts at once, some failing, with one or two Ps: every child is restricted, and no
// thread of this process that can still run Go code stays restricted.
func TestStartConcurrent(t *testing.T) {
	requireGuard(t)
	for _, procs := range []int{1, 2} {
		t.Run(fmt.Sprintf("GOMAXPROCS=%d", procs), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			l := newLayout(t)
			spec := Spec{Deny: []string{l.repo}, Allow: []string{l.scoped}}
			secret := filepath.Join(l.repo, "secret.txt")
			b, err := os.ReadFile(secret)
			if err != nil {
				t.Fatal(err)
			}
			content := string(b)
			var wg sync.WaitGroup
			errs := make(chan string, 64)
			for i := range 32 {
				wg.Go(func() {
					if i%4 == 3 { // a start that fails after the thread is restricted
						if err := Start(spec, exec.Command(filepath.Join(l.scoped, "missing"))); err == nil {
							errs <- "a missing program started"
						}
						return
					}
					// an unguarded start meanwhile reads it: no restriction leaks to it
					if out, err := exec.Command("/bin/cat", secret).Output(); err != nil || string(out) != content {
						errs <- fmt.Sprintf("an unguarded cat: %v %q", err, out)
					}
					cmd := exec.Command("/bin/cat", secret)
					var b strings.Builder
					cmd.Stdout, cmd.Stderr = &b, &b
					if err := Start(spec, cmd); err != nil {
						errs <- err.Error()
						return
					}
					if err := cmd.Wait(); err == nil || strings.Contains(b.String(), content) {
						errs <- fmt.Sprintf("a guarded cat read the checkout: %v %q", err, b.String())
					}
				})
			}
			wg.Wait()
			close(errs)
			for e := range errs {
				t.Error(e)
			}
			for range 64 {
				wg.Go(func() {
					if b, err := os.ReadFile(secret); err != nil || string(b) != content {
						t.Errorf("this process cannot read the checkout any more: %v", err)
					}
				})
			}
			wg.Wait()
			waitUnrestricted(t)
		})
	}
}

// waitUnrestricted waits until no thread of this process but the main one (which the
// runtime wedges rather than end) has no_new_privs, which the guard sets before it
// restricts: the threads Start restricted end once their goroutine has, a moment later.
// A thread that never ends hangs the test, which then fails on its timeout.
func waitUnrestricted(t *testing.T) {
	t.Helper()
	if nnp(t, os.Getpid()) && os.Getenv("TFGATE_TEST_NNP_INHERITED") != "" {
		return
	}
	for {
		tasks, err := os.ReadDir("/proc/self/task")
		if err != nil {
			t.Fatal(err)
		}
		left := 0
		for _, task := range tasks {
			if tid, _ := strconv.Atoi(task.Name()); tid != os.Getpid() && nnp(t, tid) {
				left++
			}
		}
		if left == 0 {
			return
		}
		runtime.Gosched()
	}
}

// nnp reports whether thread tid of this process has no_new_privs (false once it is gone).
func nnp(t *testing.T, tid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/self/task/%d/status", tid))
	if err != nil {
		return false
	}
	return strings.Contains(string(b), "\nNoNewPrivs:\t1\n")
}
