package cli

import (
	"path/filepath"
	"runtime"

	"github.com/tfgate/tfgate/internal/ci"
)

// keptDataDirs is where a plan outside CI keeps the projects' terraform data directories
// between runs, to skip init when nothing it reads changed (stage.TerraformOptions.DataDirs):
// "" in CI, whose runs start from a fresh checkout, and without a cache directory.
func (a *app) keptDataDirs() string {
	if ci.FromEnv(a.getenv).CI {
		return ""
	}
	return a.dataDirsCache()
}

// dataDirsCache is where kept data directories are on this machine, "" without a cache
// directory: denied to terraform by every command, in CI too
// (stage.TerraformOptions.KeptDataDirs).
func (a *app) dataDirsCache() string {
	cache := userCacheDir(runtime.GOOS, a.getenv)
	if cache == "" {
		return ""
	}
	return filepath.Join(cache, "tfgate", "tfdata")
}
