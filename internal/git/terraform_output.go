package git

import (
	"path"
	"strings"
)

// terraformOutput reports whether the slash path p is a file terraform writes as it runs,
// never one it reads as configuration: anything in a .terraform or terraform.tfstate.d
// directory, state files and their backups and lock info, crash logs and plan files (the
// names terraform's documentation and CI templates give -out). An untracked one is no
// change: ChangedFiles leaves it out, so `terraform init` in a checkout selects nothing.
// The dependency lock file is not among them: it pins provider versions, an input.
func terraformOutput(p string) bool {
	if inTerraformDir(p) {
		return true
	}
	name := path.Base(p)
	return strings.HasSuffix(name, ".tfstate") || strings.Contains(name, ".tfstate.") ||
		name == "crash.log" || (strings.HasPrefix(name, "crash.") && strings.HasSuffix(name, ".log")) ||
		strings.HasSuffix(name, ".tfplan") || name == "tfplan"
}

// inTerraformDir reports whether the slash path p lies in a directory terraform writes:
// its data directory (.terraform) or the local backend's workspaces (terraform.tfstate.d).
func inTerraformDir(p string) bool {
	for _, part := range strings.Split(path.Dir(p), "/") {
		if part == ".terraform" || part == "terraform.tfstate.d" {
			return true
		}
	}
	return false
}
