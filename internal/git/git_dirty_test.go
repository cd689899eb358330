package git

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Terraform's own untracked working files do not make the tree dirty for apply; anything
// else does, and so does a changed tracked file of any name, and errored.tfstate.
func TestUncommittedIgnoresTerraformWorkFiles(t *testing.T) {
	dir := newRepo(t, map[string]string{"app/main.tf": "# v1\n", "lib/.terraform.lock.hcl": "# committed\n"})
	writeFiles(t, dir, map[string]string{
		"app/.terraform/environment":                   "default",
		"app/.terraform/providers/x/y":                 "binary",
		"app/.terraform.lock.hcl":                      "# written by init\n",
		"app/terraform.tfstate":                        "{}",
		"app/terraform.tfstate.backup":                 "{}",
		"app/terraform.tfstate.d/tfgate-apply-x/state": "{}",
	})
	ctx := context.Background()
	got, err := Git{Dir: dir}.Uncommitted(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 {
		t.Errorf("terraform's working files count as uncommitted: %q", got)
	}
	writeFiles(t, dir, map[string]string{
		"app/errored.tfstate":     "{}",
		"app/extra.tf":            "# new\n",
		"lib/.terraform.lock.hcl": "# changed\n",
	})
	if err := os.Remove(filepath.Join(dir, "app/main.tf")); err != nil {
		t.Fatal(err)
	}
	got, err = Git{Dir: dir}.Uncommitted(ctx)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	want := []string{"app/errored.tfstate", "app/extra.tf", "app/main.tf", "lib/.terraform.lock.hcl"}
	if !slices.Equal(got, want) {
		t.Errorf("Uncommitted = %q, want %q", got, want)
	}
}
