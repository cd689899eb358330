package terraform

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
)

// TestTfexecChildSurvivesGuardedStarts: tfexec starts terraform with Pdeathsig SIGKILL, which
// the kernel sends when the *thread* that started it ends, and every guarded start
// (guard.Start) ends the thread it restricted. A workspace command running while other
// projects start terraform guarded must not be killed by one of those threads ending (seen
// in make test: `terraform workspace delete … signal: killed` in apply_applied_first).
func TestTfexecChildSurvivesGuardedStarts(t *testing.T) {
	requireGuard(t)
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	slow := writeFake(t, filepath.Join(base, "slow"), "terraform", "1.5.7", map[string]string{
		"workspace": `sleep 2; echo "* default"`,
	})
	quick := writeFake(t, filepath.Join(base, "quick"), "terraform", "1.5.7", map[string]string{"show": `echo "{}"`})
	for _, d := range []string{"a", "b"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env := testEnv(t)
	a, err := NewRunner(filepath.Join(base, "a"), Binary{Path: slow}, RunnerOptions{Env: env})
	if err != nil {
		t.Fatal(err)
	}
	var done atomic.Bool
	var wg sync.WaitGroup
	var starts atomic.Int64
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, err := NewRunner(filepath.Join(base, "b"), Binary{Path: quick}, RunnerOptions{Env: env, Guard: &ReadGuard{Deny: []string{filepath.Join(base, "a")}, Allow: []string{filepath.Join(base, "b")}}})
			if err != nil {
				t.Error(err)
				return
			}
			for !done.Load() {
				if _, err := b.ShowPlan(context.Background(), "p.tfplan"); err != nil {
					t.Error(err)
					return
				}
				starts.Add(1)
			}
		}()
	}
	for range 3 {
		if _, _, err := a.Workspaces(context.Background()); err != nil {
			t.Errorf("workspace list beside %d guarded starts: %v", starts.Load(), err)
			break
		}
	}
	done.Store(true)
	wg.Wait()
}
