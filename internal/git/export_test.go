package git

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func TestExport(t *testing.T) {
	repo := newRepo(t, map[string]string{"app/main.tf": "v1", "scripts/hook.sh": "echo v1", ".tfgate.yaml": "version: 1\n"})
	if err := os.Symlink("../scripts/hook.sh", filepath.Join(repo, "app", "hook.sh")); err != nil {
		t.Fatal(err)
	}
	git(t, repo, "add", "-A")
	git(t, repo, "commit", "-qm", "link")
	base := git(t, repo, "rev-parse", "HEAD")
	// The working tree and index move on; the export shows the base as it was.
	writeFiles(t, repo, map[string]string{"app/main.tf": "v2", "new.tf": "x"})
	git(t, repo, "add", "-A")
	git(t, repo, "commit", "-qm", "v2")
	writeFiles(t, repo, map[string]string{"app/main.tf": "dirty"})

	out := t.TempDir()
	if err := (Git{Dir: repo}).Export(context.Background(), base, out); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"app/main.tf": "v1", "scripts/hook.sh": "echo v1", ".tfgate.yaml": "version: 1\n"} {
		got, err := os.ReadFile(filepath.Join(out, name))
		if err != nil || string(got) != want {
			t.Errorf("%s: got %q, %v; want %q", name, got, err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "new.tf")); !os.IsNotExist(err) {
		t.Errorf("new.tf is not in the base, but the export has it (%v)", err)
	}
	if l, err := os.Readlink(filepath.Join(out, "app", "hook.sh")); err != nil || l != "../scripts/hook.sh" {
		t.Errorf("app/hook.sh: link %q, %v", l, err)
	}
	// The repository itself is untouched: its index still holds v2, the working tree "dirty".
	if got := git(t, repo, "diff", "--cached", "--name-only"); got != "" {
		t.Errorf("index changed: %q", got)
	}
	if got, _ := os.ReadFile(filepath.Join(repo, "app", "main.tf")); string(got) != "dirty" {
		t.Errorf("working tree changed: %q", got)
	}
	if err := (Git{Dir: repo}).Export(context.Background(), "no-such-rev", t.TempDir()); err == nil {
		t.Error("an unknown revision exported")
	}
}
