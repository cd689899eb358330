package git

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TreeWith names the tree git itself writes for the same edit (an executable file keeps its
// mode; files in nested and sibling directories; a name that sorts differently as a
// directory), and writes nothing.
func TestTreeWith(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"a/b/main.tf": "content = \"v1\"\n", "a/b.tf": "x\n", "a-b/c.tf": "y\n", "run.sh": "#!/bin/sh\n", "README.md": "hi\n",
	})
	if err := os.Chmod(filepath.Join(dir, "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "init", "-q", "-b", "main")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "initial")
	head := git(t, dir, "rev-parse", "HEAD")
	objects := git(t, dir, "count-objects", "-v")
	edits := map[string][]byte{"a/b/main.tf": []byte("content = \"v2\"\n"), "run.sh": []byte("#!/bin/sh\necho\n"), "a-b/c.tf": []byte("z\n")}
	tree, modes, err := Git{Dir: dir}.TreeWith(context.Background(), head, edits)
	if err != nil {
		t.Fatal(err)
	}
	if got := git(t, dir, "count-objects", "-v"); got != objects {
		t.Errorf("TreeWith wrote objects:\n%s\nwas\n%s", got, objects)
	}
	if modes["run.sh"] != "100755" || modes["a/b/main.tf"] != "100644" {
		t.Errorf("modes %v", modes)
	}
	unchanged, _, err := Git{Dir: dir}.TreeWith(context.Background(), head, nil)
	if want := git(t, dir, "rev-parse", "HEAD^{tree}"); err != nil || unchanged != want {
		t.Errorf("no edit: %s, %v; want %s", unchanged, err, want)
	}
	writeFiles(t, dir, map[string]string{"a/b/main.tf": string(edits["a/b/main.tf"]), "run.sh": string(edits["run.sh"]), "a-b/c.tf": "z\n"})
	git(t, dir, "add", "-A")
	if want := git(t, dir, "write-tree"); tree != want {
		t.Errorf("TreeWith = %s, git writes %s", tree, want)
	}
	if _, _, err := (Git{Dir: dir}).TreeWith(context.Background(), head, map[string][]byte{"nope.tf": nil}); err == nil {
		t.Error("a file the commit lacks: no error")
	}
}
