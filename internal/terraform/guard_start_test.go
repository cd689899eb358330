package terraform

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGuardedRunnerStartsInProcess: with a read guard, the commands tfgate runs itself start
// terraform directly (not tfgate's binary re-executed), still guarded, and without the
// re-exec's variable.
func TestGuardedRunnerStartsInProcess(t *testing.T) {
	requireGuard(t)
	base, repo, work, secret := guardedTree(t)
	fake := writeFake(t, filepath.Join(base, "bin"), "terraform", "1.5.7", map[string]string{
		"show": `cat "$SECRET" 2>&1; echo "guard=${TFGATE_READ_GUARD-unset}"`,
	})
	env := testEnv(t)
	env["SECRET"] = secret
	tf, err := NewRunner(work, Binary{Path: fake}, RunnerOptions{Env: env, Guard: &ReadGuard{Deny: []string{repo}, Allow: []string{work}}})
	if err != nil {
		t.Fatal(err)
	}
	r := tf.(*runner)
	if cmd := r.direct(context.Background(), r.execEnv(), "show"); cmd.Path != fake || strings.Contains(strings.Join(cmd.Env, "\n"), "TFGATE_READ_GUARD") {
		t.Errorf("direct start: %s with the re-exec's variable %v; want %s without", cmd.Path, strings.Contains(strings.Join(cmd.Env, "\n"), "TFGATE_READ_GUARD"), fake)
	}
	out, err := tf.ShowPlan(context.Background(), "p.tfplan")
	if err != nil {
		t.Fatal(err)
	}
	if got := string(out); strings.Contains(got, "secret\n") || !strings.Contains(got, "Permission denied") || !strings.Contains(got, "guard=unset") {
		t.Errorf("show printed %q; want the checkout refused and no guard variable", got)
	}
	if b, err := os.ReadFile(secret); err != nil || string(b) != "secret\n" {
		t.Errorf("the caller cannot read the checkout any more: %v", err)
	}
}

// guardedTree is a checkout (repo, holding secret.txt) and a working directory (work) under
// base, a temporary directory with its links resolved: what a guard must keep terraform
// out of, and where it may work.
func guardedTree(t *testing.T) (base, repo, work, secret string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	repo, work = filepath.Join(base, "repo"), filepath.Join(base, "work")
	for _, d := range []string{repo, work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	secret = filepath.Join(repo, "secret.txt")
	if err := os.WriteFile(secret, []byte("secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return base, repo, work, secret
}
