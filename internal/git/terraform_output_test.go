package git

import (
	"context"
	"slices"
	"testing"
)

// What terraform writes as it runs is no change while untracked (a plain `terraform init`
// or apply in the checkout, no .gitignore); a new lock file, any other new file, and a
// tracked file of any name that changed still are.
func TestChangedFilesLeavesOutTerraformOutput(t *testing.T) {
	dir := newRepo(t, map[string]string{"app/main.tf": "# v1\n", "lib/.terraform/environment": "default"})
	git(t, dir, "checkout", "-q", "-b", "feature")
	writeFiles(t, dir, map[string]string{
		"app/.terraform/modules/modules.json": "{}",
		"app/terraform.tfstate":               "{}",
		"app/terraform.tfstate.backup":        "{}",
		"app/errored.tfstate":                 "{}",
		"app/.terraform.tfstate.lock.info":    "{}",
		"app/terraform.tfstate.d/dev/state":   "{}",
		"app/crash.log":                       "panic",
		"app/crash.20261204.log":              "panic",
		"app/tfplan":                          "plan",
		"app/prod.tfplan":                     "plan",
		"app/.terraform.lock.hcl":             "# written by init\n",
		"app/extra.tf":                        "# new\n",
		"lib/.terraform/environment":          "dev",
	})
	got, err := Git{Dir: dir}.ChangedFiles(context.Background(), "main")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"app/.terraform.lock.hcl", "app/extra.tf", "lib/.terraform/environment"}
	if !slices.Equal(got.Files, want) {
		t.Errorf("Files = %q, want %q", got.Files, want)
	}
}

func TestTerraformOutput(t *testing.T) {
	for p, want := range map[string]bool{
		".terraform/providers/x":   true,
		"a/b/.terraform/x/y":       true,
		"terraform.tfstate.d/x/y":  true,
		"x.tfstate":                true,
		"terraform.tfstate.backup": true,
		"crash.log":                true,
		"a/crash.1.log":            true,
		"a/tfplan":                 true,
		"a/b.tfplan":               true,
		".terraform.lock.hcl":      false,
		"a/main.tf":                false,
		"a/terraform.tfvars":       false,
		"a/crash.txt":              false,
		"a/tfplan.md":              false,
		"a/.terraformrc":           false,
	} {
		if got := terraformOutput(p); got != want {
			t.Errorf("terraformOutput(%q) = %v, want %v", p, got, want)
		}
	}
}
