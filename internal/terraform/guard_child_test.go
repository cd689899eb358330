package terraform

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// guardChildEnv makes this test binary a Go program that terraform starts (a provider, an
// external data source's program): it reads the file the variable names from threads of
// its own, and through a process it starts from each, and says what it could read.
const guardChildEnv = "TFGATE_TEST_GUARD_CHILD"

func init() {
	path := os.Getenv(guardChildEnv)
	if path == "" {
		return
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	read := 0
	for range 8 {
		wg.Go(func() {
			runtime.LockOSThread() // a thread of its own: each a new one the runtime made
			_, err := os.ReadFile(path)
			out, cerr := exec.Command("/bin/cat", path).Output()
			mu.Lock()
			defer mu.Unlock()
			if err == nil {
				read++
			}
			if cerr == nil || len(out) > 0 {
				read++
			}
		})
	}
	wg.Wait()
	fmt.Printf("child read %d of 16\n", read)
	os.Exit(0)
}

// TestGuardedRunnerChildGoProgram: what terraform starts inherits the guard through the
// in-process start: a Go program terraform runs (as it runs providers and external data
// sources' programs) cannot read the checkout from any of its threads, nor through what
// they start; tfgate still can afterwards.
func TestGuardedRunnerChildGoProgram(t *testing.T) {
	requireGuard(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	base, repo, work, secret := guardedTree(t)
	fake := writeFake(t, filepath.Join(base, "bin"), "terraform", "1.5.7", map[string]string{
		"show": `"$HELPER"`,
	})
	env := testEnv(t)
	env["HELPER"], env[guardChildEnv] = self, secret
	tf, err := NewRunner(work, Binary{Path: fake}, RunnerOptions{Env: env, Guard: &ReadGuard{Deny: []string{repo}, Allow: []string{work}}})
	if err != nil {
		t.Fatal(err)
	}
	out, err := tf.ShowPlan(context.Background(), "p.tfplan")
	if err != nil {
		t.Fatal(err)
	}
	if got := string(out); !strings.Contains(got, "child read 0 of 16") {
		t.Errorf("the Go program terraform started printed %q; want it to have read nothing", got)
	}
	if b, err := os.ReadFile(secret); err != nil || string(b) != "secret\n" {
		t.Errorf("the caller cannot read the checkout any more: %v", err)
	}
	// Unguarded, the same program reads it all: the test can tell.
	unguarded := exec.Command(self)
	unguarded.Env = append(os.Environ(), guardChildEnv+"="+secret)
	if b, err := unguarded.Output(); err != nil || !strings.Contains(string(b), "child read 16 of 16") {
		t.Errorf("unguarded, the program printed %q (%v); want all read", b, err)
	}
}
