package git

import (
	"os/exec"
	"strings"
	"testing"
)

func TestGitlinks(t *testing.T) {
	dir := t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(cmd.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	run("init", "-q", "-b", "main")
	run("commit", "-q", "--allow-empty", "-m", "first")
	sub := run("rev-parse", "HEAD")
	// A gitlink as git submodule add records it, without a second repository.
	run("update-index", "--add", "--cacheinfo", "160000,"+sub+",vendor/tools")
	run("commit", "-q", "-m", "submodule")
	links, err := Git{Dir: dir}.Gitlinks(t.Context(), "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	if len(links) != 1 || links["vendor/tools"] != sub {
		t.Errorf("Gitlinks = %v, want vendor/tools → %s", links, sub)
	}
}
