//go:build unix

package terraform

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/tfgate/tfgate/internal/testenv"
)

// IsStalePlan and IsLocked read terraform's error text; terraform 1.5.7 and OpenTofu 1.10.6
// must both be recognised, or apply reports a stale plan or a held lock as a plain failure.
func TestApplyStaleAndLockedEveryFlavour(t *testing.T) {
	t.Parallel()
	for _, bin := range []Binary{realTerraform(t), resolveTest(t, testenv.Tofu(t))} {
		t.Run(bin.Flavor, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			r, dir, _ := newTestRunnerWith(t, bin, map[string]string{"main.tf": dataConfig}, testEnv(t))
			for _, out := range []string{"first.tfplan", "second.tfplan"} {
				if _, err := r.Plan(ctx, PlanOptions{Out: out}); err != nil {
					t.Fatal(err)
				}
			}
			if err := r.Apply(ctx, "second.tfplan", ApplyOptions{}); err != nil {
				t.Fatal(err)
			}
			err := r.Apply(ctx, "first.tfplan", ApplyOptions{})
			if !IsStalePlan(err) || IsLocked(err) {
				t.Errorf("applying a plan made before another apply: IsStalePlan %v, IsLocked %v: %v", IsStalePlan(err), IsLocked(err), err)
			}

			// Both lock local state with fcntl on the state file; a lock this process holds
			// is one another run holds.
			if _, err := r.Plan(ctx, PlanOptions{Out: "third.tfplan"}); err != nil {
				t.Fatal(err)
			}
			release := holdStateLock(t, filepath.Join(dir, "terraform.tfstate"))
			err = r.Apply(ctx, "third.tfplan", ApplyOptions{})
			if !IsLocked(err) || IsStalePlan(err) {
				t.Errorf("applying while the state is locked: IsLocked %v, IsStalePlan %v: %v", IsLocked(err), IsStalePlan(err), err)
			}
			release()
			if err := r.Apply(ctx, "third.tfplan", ApplyOptions{}); err != nil {
				t.Errorf("apply once the lock is released: %v", err)
			}
		})
	}
}

func holdStateLock(t *testing.T, path string) (release func()) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	lock := &syscall.Flock_t{Type: syscall.F_WRLCK, Whence: io.SeekStart}
	if err := syscall.FcntlFlock(f.Fd(), syscall.F_SETLK, lock); err != nil {
		t.Fatal(err)
	}
	return func() { f.Close() } // closing the file drops the process's lock
}

// Messages that tell the user what to run name the flavour that ran.
func TestCommandErrorNamesTheFlavour(t *testing.T) {
	for cmd, want := range map[string]string{"terraform plan": "run `terraform force-unlock` in envs/app", "tofu plan": "run `tofu force-unlock` in envs/app"} {
		err := &CommandError{Command: cmd, Dir: "envs/app", Err: errors.New("signal: killed"), Ctx: context.Canceled}
		if !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), cmd+" in envs/app: interrupted") {
			t.Errorf("%s: %q, want it to say %q", cmd, err, want)
		}
	}
}
