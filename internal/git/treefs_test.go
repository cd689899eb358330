package git

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTreeFSReadsTheCommitNotTheWorkingTree(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	gitT := func(args ...string) {
		t.Helper()
		g := Git{Dir: dir}
		if _, err := g.run(ctx, append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...); err != nil {
			t.Fatal(err)
		}
	}
	write := func(name, content string) {
		t.Helper()
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitT("init", "-q", "-b", "main")
	write("sub/policies/a.rego", "base")
	write("sub/policies/nested/b.rego", "nested")
	write("sub/other/c.txt", "other")
	gitT("add", "-A")
	gitT("commit", "-q", "-m", "base")
	write("sub/policies/a.rego", "changed in the working tree")
	write("sub/policies/new.rego", "new")

	// From the top-level.
	fsys, err := Git{Dir: dir}.TreeFS(ctx, "HEAD", []string{"sub/policies"})
	if err != nil {
		t.Fatal(err)
	}
	if data, err := fs.ReadFile(fsys, "sub/policies/a.rego"); err != nil || string(data) != "base" {
		t.Fatalf("a.rego = %q, %v; want the committed content", data, err)
	}
	if _, err := fs.Stat(fsys, "sub/policies/new.rego"); err == nil {
		t.Fatal("an uncommitted file must not be in the tree")
	}
	if _, err := fs.Stat(fsys, "sub/other/c.txt"); err == nil {
		t.Fatal("files outside the asked dirs must not be read")
	}
	// From a subdirectory (tfgate -C sub): paths are relative to it.
	fsys, err = Git{Dir: filepath.Join(dir, "sub")}.TreeFS(ctx, "HEAD", []string{"policies"})
	if err != nil {
		t.Fatal(err)
	}
	if data, _ := fs.ReadFile(fsys, "policies/nested/b.rego"); string(data) != "nested" {
		t.Fatalf("nested file from a subdirectory root: %q", data)
	}
	// A dir that does not exist at rev is empty, not an error.
	fsys, err = Git{Dir: dir}.TreeFS(ctx, "HEAD", []string{"nope"})
	if err != nil {
		t.Fatal(err)
	}
	if entries, _ := fs.ReadDir(fsys, "."); len(entries) != 0 {
		t.Fatalf("want empty tree, got %v", entries)
	}
}

func TestCommitOutsideARepositoryIsNotUnknownRevision(t *testing.T) {
	_, err := Git{Dir: t.TempDir()}.Commit(context.Background(), "HEAD")
	if err == nil || strings.Contains(err.Error(), "unknown git revision") || !strings.Contains(err.Error(), "not a git repository") {
		t.Fatalf("got %v, want git's own 'not a git repository'", err)
	}
}

func TestDirty(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	g := Git{Dir: dir}
	run := func(args ...string) {
		t.Helper()
		if _, err := g.run(ctx, append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...); err != nil {
			t.Fatal(err)
		}
	}
	run("init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(dir, "a.tf"), []byte("x"), 0o644)
	run("add", "-A")
	run("commit", "-q", "-m", "c")
	if dirty, err := g.Dirty(ctx); err != nil || dirty {
		t.Fatalf("clean tree: dirty=%v err=%v", dirty, err)
	}
	os.WriteFile(filepath.Join(dir, "b.tf"), []byte("y"), 0o644)
	if dirty, _ := g.Dirty(ctx); !dirty {
		t.Fatal("an untracked file must make the tree dirty")
	}
}
