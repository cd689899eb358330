package fileio

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "metrics.prom")
	for _, data := range []string{"first\n", "second\n"} {
		if err := WriteAtomic(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != data {
			t.Fatalf("read %q, %v; want %q", got, err, data)
		}
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", info.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("left %d files in the directory, want only the file itself", len(entries))
	}
	if err := WriteAtomic(filepath.Join(dir, "missing", "x"), nil, 0o600); err == nil {
		t.Error("a missing directory: no error")
	}
}

func TestCopyTree(t *testing.T) {
	src := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(src, "a", "b"), 0o755))
	must(t, os.WriteFile(filepath.Join(src, "a", "b", "run"), []byte("x"), 0o755))
	must(t, os.WriteFile(filepath.Join(src, "top"), []byte("y"), 0o644))

	keep := filepath.Join(t.TempDir(), "keep")
	must(t, CopyTree(src, keep, KeepModes))
	mode(t, filepath.Join(keep, "a", "b", "run"), 0o755)
	mode(t, filepath.Join(keep, "top"), 0o644)

	private := filepath.Join(t.TempDir(), "private")
	must(t, CopyTree(src, private, OwnerOnly))
	mode(t, filepath.Join(private, "a", "b", "run"), 0o600)
	mode(t, filepath.Join(private, "a"), 0o700)
	if data, _ := os.ReadFile(filepath.Join(private, "top")); string(data) != "y" {
		t.Errorf("copied %q, want %q", data, "y")
	}

	if err := CopyTree(src, keep, KeepModes); err == nil {
		t.Error("copying over existing files: no error")
	}

	must(t, os.Symlink("/etc/passwd", filepath.Join(src, "link")))
	err := CopyTree(src, filepath.Join(t.TempDir(), "linked"), OwnerOnly)
	if err == nil || !strings.Contains(err.Error(), "link: not a regular file") {
		t.Errorf("a symbolic link: %v, want it refused with its path", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func mode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != want {
		t.Errorf("%s: mode %v, want %v", path, info.Mode().Perm(), want)
	}
}
