package pipeline

import (
	"os/exec"
	"testing"
)

// Fold-back branches: a project's own name when git takes it as is, else a slug with a
// short hash of the name, so that two projects never share a branch; always a valid branch
// name under tfgate/fold-back/.
func TestFoldBackBranch(t *testing.T) {
	cases := []struct{ name, workspace, want string }{
		{"app", "", "tfgate/fold-back/app"},
		{"app", "default", "tfgate/fold-back/app"},
		{"envs/prod/app", "", "tfgate/fold-back/envs-prod-app-22e55d"},
		{"envs-prod-app", "", "tfgate/fold-back/envs-prod-app"},
		{"app", "prod", "tfgate/fold-back/app-prod-045a43"},
		{"a..b.lock", "", "tfgate/fold-back/a-b-86ceb9"},
		{"../../x", "", "tfgate/fold-back/x-9cdf6a"},
		{"x.lock", "", "tfgate/fold-back/x-f53b53"},
		{"x", "", "tfgate/fold-back/x"},
		{"~^:?*[\\ \x00", "", "tfgate/fold-back/f4e85a"},
	}
	seen := map[string]string{}
	for _, c := range cases {
		got := FoldBackBranch(c.name, c.workspace)
		if got != c.want {
			t.Errorf("FoldBackBranch(%q, %q) = %q, want %q", c.name, c.workspace, got, c.want)
		}
		if other, dup := seen[got]; dup && other != c.name {
			t.Errorf("%q and %q share %s", other, c.name, got)
		}
		seen[got] = c.name
		if err := exec.Command("git", "check-ref-format", "--branch", got).Run(); err != nil {
			t.Errorf("git refuses the branch name %q: %v", got, err)
		}
	}
}
