package tffiles

import (
	"os"
	"path/filepath"
	"testing"
)

func TestIsConfig(t *testing.T) {
	for name, want := range map[string]bool{
		"main.tf": true, "x.tf.json": true, "versions.tofu": true, "a.tofu.json": true,
		"terraform.tfvars": false, "x.tfstate": false, "tfplan": false, "main.tf.bak": false, "README.md": false,
	} {
		if IsConfig(name) != want {
			t.Errorf("IsConfig(%q) = %v", name, !want)
		}
	}
}

func TestDirHasConfig(t *testing.T) {
	dir := t.TempDir()
	if DirHasConfig(dir) || DirHasConfig(filepath.Join(dir, "missing")) {
		t.Fatal("an empty or missing dir has no configuration")
	}
	os.Mkdir(filepath.Join(dir, "sub.tf"), 0o755) // a directory named like a file does not count
	if DirHasConfig(dir) {
		t.Fatal("a directory named *.tf is not configuration")
	}
	os.WriteFile(filepath.Join(dir, "versions.tofu"), nil, 0o644)
	if !DirHasConfig(dir) {
		t.Fatal("versions.tofu is configuration")
	}
}
