package git

import (
	"context"
	"fmt"
	"path"
	"strings"
)

// Uncommitted lists what `git status` shows in the work tree, leaving out the files
// terraform itself writes beside a configuration when they are untracked: a .terraform
// directory, the dependency lock file, the local backend's state (terraform.tfstate, its
// backup, terraform.tfstate.d). Apply runs terraform in the checkout, so a second apply there
// would otherwise find its own working files and refuse. A tracked file that changed counts,
// whatever its name, and so does errored.tfstate: an apply that could not save its state.
func (g Git) Uncommitted(ctx context.Context) ([]string, error) {
	out, err := g.run(ctx, "status", "--porcelain", "-z", "--untracked-files=all")
	if err != nil {
		return nil, fmt.Errorf("git status: %w", err)
	}
	var paths []string
	entries := strings.Split(string(out), "\x00")
	for i := 0; i < len(entries); i++ {
		e := entries[i]
		if len(e) < 4 {
			continue
		}
		code, p := e[:2], e[3:]
		if code[0] == 'R' || code[0] == 'C' {
			i++ // the source path follows
		}
		if code == "??" && terraformWorkFile(p) {
			continue
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// terraformWorkFile reports whether the slash path p is one of terraform's working files.
func terraformWorkFile(p string) bool {
	if inTerraformDir(p) {
		return true
	}
	switch path.Base(p) {
	case ".terraform.lock.hcl", "terraform.tfstate", "terraform.tfstate.backup":
		return true
	}
	return false
}
