package project

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// InputFiles returns every file (root-relative, sorted) that can change what planning p
// produces: the files of its Dir and of each of its Modules, including subdirectories that
// hold no Terraform files of their own (templates/, files/, scripts/), plus its VarFiles.
// Plan bundles hash them so an apply can prove it runs the code that was planned.
//
// Left out: hidden files and directories (.terraform/ and the like) except
// .terraform.lock.hcl, which pins provider versions; terraform.tfstate.d/, *.tfstate*
// and *.tfplan or tfplan (outputs, not inputs); and subdirectories holding *.tf files, which are
// other projects or modules (p's own modules are listed through Modules). Symbolic links
// count as the file they point at; links to directories are not followed.
func InputFiles(ctx context.Context, root string, p Project) ([]string, error) {
	set := map[string]bool{}
	for _, dir := range append([]string{p.Dir}, p.Modules...) {
		if err := collectInputs(ctx, root, dir, true, set); err != nil {
			return nil, fmt.Errorf("project %s: %w", p.Name, err)
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

// collectInputs adds the input files of dir to set. top is true for a project or module
// directory, false for a plain subdirectory of one.
func collectInputs(ctx context.Context, root, dir string, top bool, set map[string]bool) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(dir)))
	if err != nil {
		if top && os.IsNotExist(err) {
			return fmt.Errorf("directory %s does not exist", dir)
		}
		return fmt.Errorf("read %s: %w", dir, err)
	}
	if !top {
		for _, e := range entries {
			if !e.IsDir() && isTerraformFile(e.Name()) {
				return nil // its own configuration, not an input of the parent
			}
		}
	}
	for _, e := range entries {
		name := e.Name()
		if !isInput(name) {
			continue
		}
		rel := path.Join(dir, name)
		switch {
		case e.IsDir():
			if name == "terraform.tfstate.d" {
				continue
			}
			if err := collectInputs(ctx, root, rel, false, set); err != nil {
				return err
			}
		case e.Type().IsRegular():
			set[rel] = true
		case e.Type()&os.ModeSymlink != 0:
			if fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel))); err == nil && fi.Mode().IsRegular() {
				set[rel] = true
			}
		}
	}
	return nil
}

// isInput reports whether a directory entry called name may be an input at all.
func isInput(name string) bool {
	if strings.HasPrefix(name, ".") {
		return name == ".terraform.lock.hcl"
	}
	return !strings.HasSuffix(name, ".tfstate") &&
		!strings.Contains(name, ".tfstate.") &&
		!strings.HasSuffix(name, ".tfplan") && name != "tfplan" // the names terraform docs and CI templates use for -out
}
