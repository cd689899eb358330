package guard

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// BenchmarkGuardedExec is the guard's cost per start: /bin/true run directly, and run
// through Wrap's re-exec with a checkout five levels below the temporary directory denied
// (this test binary as the wrapper; tfgate's own start comes on top). rules/op is how many
// rules the guard built, one per entry beside the way down to the checkout.
func BenchmarkGuardedExec(b *testing.B) {
	requireGuard(b)
	repo, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	repo = filepath.Join(repo, "a", "b", "c", "d", "repo")
	if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o755); err != nil {
		b.Fatal(err)
	}
	spec := Spec{Deny: []string{repo}}
	b.Run("direct", func(b *testing.B) {
		for b.Loop() {
			if err := exec.Command("/bin/true").Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("guarded", func(b *testing.B) {
		req, err := resolve(request{Deny: spec.Deny, Target: "/bin/true"})
		if err != nil {
			b.Fatal(err)
		}
		rules, err := rulePaths(req)
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			path, env, err := Wrap(spec, "/bin/true")
			if err != nil {
				b.Fatal(err)
			}
			cmd := exec.Command(path)
			cmd.Env = append(os.Environ(), env...)
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(rules)), "rules/op")
	})
}
