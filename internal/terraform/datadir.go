package terraform

import (
	"fmt"
	"os"
	"path/filepath"
)

// usableDataDir checks a RunnerOptions.DataDir: terraform resolves a relative TF_DATA_DIR
// against the project directory, which is the repository's, and creates a missing one
// itself, where a mistyped path would go unnoticed.
func usableDataDir(dir string) error {
	if !filepath.IsAbs(dir) {
		return fmt.Errorf("data directory %s: not an absolute path", dir)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("data directory (TF_DATA_DIR) %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("data directory (TF_DATA_DIR) %s: not a directory", dir)
	}
	return nil
}

// DataDir is terraform's data directory for the runner's project (TF_DATA_DIR, else
// .terraform in its directory): where init records the modules it installed, which apply
// compares with a plan file's configuration.
func (r *runner) DataDir() string { return r.dataDir() }
