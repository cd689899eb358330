package git

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// findTopLevel answers like `git rev-parse --show-toplevel`, or leaves the question to git.
func TestFindTopLevelAgreesWithGit(t *testing.T) {
	repo := newRepo(t, map[string]string{"envs/a/main.tf": "", "modules/m/main.tf": ""})
	base := filepath.Dir(repo)

	// A linked worktree, a repository whose git directory lives elsewhere (a .git file, as
	// submodules have), a symlink into the repository.
	wt := filepath.Join(base, "wt")
	git(t, repo, "worktree", "add", "-q", wt)
	sep := filepath.Join(base, "sep")
	git(t, base, "init", "-q", "--separate-git-dir", filepath.Join(base, "sep.git"), sep)
	if err := os.Symlink(filepath.Join(repo, "envs"), filepath.Join(base, "link")); err != nil {
		t.Fatal(err)
	}
	// A working tree moved by core.worktree, and a bare repository inside a working tree.
	moved := newRepo(t, map[string]string{"x/main.tf": ""})
	git(t, moved, "config", "core.worktree", filepath.Join(moved, "x"))
	git(t, repo, "init", "-q", "--bare", filepath.Join(repo, "vendor", "bare.git"))

	tests := []struct {
		dir  string
		sure bool // findTopLevel answers itself
	}{
		{repo, true},
		{filepath.Join(repo, "envs", "a"), true},
		{wt, true},
		{filepath.Join(wt, "modules", "m"), true},
		{sep, true},
		{filepath.Join(base, "link", "a"), true},
		{filepath.Join(repo, ".git"), false},
		{filepath.Join(repo, ".git", "refs"), false},
		{filepath.Join(repo, "vendor", "bare.git"), false},
		{filepath.Join(moved, "x"), false},
		{t.TempDir(), false},
		{filepath.Join(repo, "missing"), false},
	}
	for _, tt := range tests {
		got, ok := findTopLevel(tt.dir)
		if ok != tt.sure {
			t.Errorf("findTopLevel(%s): answered %v (%q), want %v", tt.dir, ok, got, tt.sure)
			continue
		}
		if !ok {
			continue
		}
		cmd := exec.Command("git", "rev-parse", "--show-toplevel")
		cmd.Dir = tt.dir
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git rev-parse in %s: %v", tt.dir, err)
		}
		if want := strings.TrimSpace(string(out)); got != want {
			t.Errorf("findTopLevel(%s) = %s, git says %s", tt.dir, got, want)
		}
	}

	// A discovery variable leaves it to git.
	t.Setenv("GIT_DIR", filepath.Join(repo, ".git"))
	if got, ok := findTopLevel(repo); ok {
		t.Errorf("with GIT_DIR set: answered %s", got)
	}
}
