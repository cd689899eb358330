package project

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
)

// InputFiles returns every file (root-relative, sorted) that can change what planning p
// produces: the contents (see contents.go) of its Dir and of each of its Modules, plus its
// VarFiles. Plan bundles hash them so an apply can prove it runs the code that was
// planned; Changed selects a project on a change to exactly these files (and the targets
// of the symbolic links among them).
//
// Left out, as contents.go says: hidden files and directories except .terraform.lock.hcl;
// terraform.tfstate.d/, state and plan files; documentation (*.md) and tests
// (*.tftest.hcl); and subdirectories holding Terraform files, which are other projects or
// modules (p's own modules are listed through Modules). A symbolic link counts as the file
// it points at; a link to a directory as that directory, its files listed under the link's
// path (envs/prod/scripts/deploy.sh for envs/prod/scripts → ../dev/scripts).
func InputFiles(ctx context.Context, root string, p Project) ([]string, error) {
	s := newScanner(root, func(string) bool { return true })
	set := map[string]bool{}
	for _, dir := range append([]string{p.Dir}, p.Modules...) {
		c, err := s.scan(ctx, dir)
		if err != nil {
			return nil, fmt.Errorf("project %s: %w", p.Name, err)
		}
		for _, f := range c.files {
			set[f] = true
		}
	}
	for _, vf := range p.VarFiles {
		f := path.Join(p.Dir, vf)
		if !local(f) {
			continue // outside the repository: no root-relative name to hash it under
		}
		fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(f)))
		if err != nil || !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("project %s: var file %s (%s) not found: fix var_files or add the file", p.Name, vf, f)
		}
		set[f] = true
	}
	return sortedKeys(set), nil
}
