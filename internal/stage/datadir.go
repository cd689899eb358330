package stage

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/tfgate/tfgate/internal/bundle"
)

// Terraform's data directory (TF_DATA_DIR) records the state backend's settings (its
// terraform.tfstate), the installed modules (modules/modules.json) and the selected
// workspace (environment), and terraform trusts what it finds there: the backend cache
// even overrides the backend block whenever its hash matches. The default, .terraform in
// the project directory, is a directory of the repository, so a committed one would choose
// the state, the modules and the workspace without review. Every project's run (plan,
// drift, apply) gets a new, empty one outside the work tree instead, removed when the
// project is done: what it holds is what `terraform init` wrote in this run — or, for a
// laptop's plan, in an earlier run whose init read exactly what this one's would
// (datadir_reuse.go).

// dataDirPrefix names the projects' data directories in the temporary directory.
const dataDirPrefix = "tfgate-tfdata-"

// newDataDir makes r's data directory and returns the function that removes it. With
// opts.keepDataDirs (tests) it is <keepDataDirs>/<project's bundle directory name> and
// stays.
func (r *ProjectRun) newDataDir() (release func(), err error) {
	if keep := r.Opts.KeepDataDirs; keep != "" {
		dir := filepath.Join(keep, bundle.DirName(r.Project.Name, r.Project.Workspace))
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, dataDirError(r.Project.Name, keep, err)
		}
		r.dataDir = dir
		return func() {}, nil
	}
	if kept := r.Opts.Terraform.DataDirs; kept != "" {
		if release, ok := r.keptDataDir(kept); ok {
			return release, nil
		}
	}
	dir, err := os.MkdirTemp("", dataDirPrefix)
	if err != nil {
		return nil, dataDirError(r.Project.Name, os.TempDir(), err)
	}
	r.dataDir = dir
	return func() { os.RemoveAll(dir) }, nil
}

func dataDirError(project, parent string, err error) error {
	return fmt.Errorf("%s: terraform's data directory (TF_DATA_DIR) cannot be made in %s: %w; tfgate never uses the project's .terraform: point TMPDIR at a writable directory", project, parent, err)
}
