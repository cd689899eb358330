package git

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestMain(m *testing.M) {
	// Hermetic git for the test repos and for the code under test (which inherits the
	// environment): no user or system config (default branch names, signing, hooks paths).
	for k, v := range map[string]string{
		"GIT_CONFIG_GLOBAL":   os.DevNull,
		"GIT_CONFIG_NOSYSTEM": "1",
		"GIT_AUTHOR_NAME":     "Test",
		"GIT_AUTHOR_EMAIL":    "test@example.com",
		"GIT_COMMITTER_NAME":  "Test",
		"GIT_COMMITTER_EMAIL": "test@example.com",
	} {
		os.Setenv(k, v)
	}
	os.Exit(m.Run())
}

// git runs git in dir and returns its trimmed stdout; any failure fails the test.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return strings.TrimSpace(string(out))
}

// writeFiles writes name → content under dir, creating parent directories.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// newRepo makes a repository with one commit holding files on branch main.
func newRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "repo")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "init", "-q", "-b", "main")
	writeFiles(t, dir, files)
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "initial")
	return dir
}

// cloneWithOrigin publishes seed as a bare "origin" and clones it, so the clone has
// origin/HEAD like a developer's checkout.
func cloneWithOrigin(t *testing.T, seed string) (work, origin string) {
	t.Helper()
	parent := t.TempDir()
	origin = filepath.Join(parent, "origin.git")
	work = filepath.Join(parent, "work")
	git(t, parent, "clone", "-q", "--bare", seed, origin)
	git(t, parent, "clone", "-q", origin, work)
	git(t, seed, "remote", "add", "origin", origin)
	git(t, seed, "fetch", "-q", "origin")
	return work, origin
}

func ctx(t *testing.T) context.Context { return t.Context() }
