package git

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TrackedDirFiles lists what the index holds under (or as) a directory name anywhere below
// Dir, relative to Dir; ignored and untracked files are not listed.
func TestTrackedDirFiles(t *testing.T) {
	repo := newRepo(t, map[string]string{
		".gitignore":       ".terraform/\n",
		"main.tf":          "",
		"sub/app/main.tf":  "",
		"sub/.terraformrc": "",
	})
	writeFiles(t, repo, map[string]string{
		".terraform/environment":                  "evil",
		"sub/app/.terraform/terraform.tfstate":    "{}",
		"sub/app/.terraform/modules/modules.json": "{}",
		"sub/other/.terraform/untracked":          "",
	})
	if err := os.Symlink("/tmp", filepath.Join(repo, "sub", ".terraform")); err != nil {
		t.Fatal(err)
	}
	git(t, repo, "add", "-f", ".terraform/environment", "sub/app/.terraform", "sub/.terraform")
	git(t, repo, "commit", "-q", "-m", "committed data directories")

	got, err := Git{Dir: repo}.TrackedDirFiles(t.Context(), ".terraform")
	want := []string{".terraform/environment", "sub/.terraform", "sub/app/.terraform/modules/modules.json", "sub/app/.terraform/terraform.tfstate"}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("from the top: %q %v, want %q", got, err, want)
	}
	got, err = Git{Dir: filepath.Join(repo, "sub")}.TrackedDirFiles(t.Context(), ".terraform")
	want = []string{".terraform", "app/.terraform/modules/modules.json", "app/.terraform/terraform.tfstate"}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("from sub: %q %v, want %q", got, err, want)
	}
	if _, err := (Git{Dir: t.TempDir()}).TrackedDirFiles(t.Context(), ".terraform"); err == nil || !strings.Contains(err.Error(), "list the files git tracks under .terraform/") {
		t.Errorf("outside a repository: %v", err)
	}
}
