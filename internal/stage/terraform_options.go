package stage

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/terraform"
)

// TerraformOptions say how to find terraform, from the environment the command runs in.
type TerraformOptions struct {
	Override   string // TFGATE_TERRAFORM: a path or a name on PATH
	PathEnv    string // PATH
	InstallDir string // where downloaded versions go
	Install    bool   // --install: downloading one is allowed
	// PluginCacheDir is where the shared provider cache goes by default (the runner's tool
	// cache, the user's cache directory); "" = nowhere: no cache.
	PluginCacheDir string
	// DataDirs is where a laptop's plan keeps each project's terraform data directory
	// between runs, so that init runs only when something it reads changed
	// (datadir_reuse.go); "" = a new one every run (CI, and every command but plan).
	DataDirs string
	// KeptDataDirs is where kept data directories are on this machine, whether or not
	// this run keeps one: denied to terraform in every run (a plan --fresh of a pull
	// request must not change what a later plan's skipped init trusts); "" = none.
	KeptDataDirs string
	// VersionCache is the file remembering the versions of binaries already probed
	// ("" = probe every time).
	VersionCache string
}

// PluginCacheDir is the provider cache of a run: opts' unless the config turns it off.
func PluginCacheDir(cfg *config.Config, opts TerraformOptions) string {
	if !cfg.Terraform.PluginCache {
		return ""
	}
	return opts.PluginCacheDir
}

// ResolveTerraform finds the terraform (or tofu) binary the config asks for.
func ResolveTerraform(ctx context.Context, cfg *config.Config, opts TerraformOptions) (terraform.Binary, error) {
	bin, err := terraform.Resolve(ctx, terraform.ResolveOptions{
		Override:   opts.Override,
		Constraint: cfg.Terraform.Version,
		Binary:     cfg.Terraform.Binary,
		Install:    opts.Install || cfg.Terraform.Install,
		InstallDir: opts.InstallDir,
		PathEnv:    opts.PathEnv,

		VersionCache: opts.VersionCache,
	})
	if err != nil && cfg.File != "" && (cfg.Terraform.Version != "" || cfg.Terraform.Binary == "tofu") {
		return bin, fmt.Errorf("%w\n(the terraform section of %s chose: binary %q, version %q)", err, cfg.File, cfg.Terraform.Binary, cfg.Terraform.Version)
	}
	return bin, err
}

// OutDir makes --out absolute (terraform runs in each project's dir) and refuses a
// directory that already holds files: stale bundles next to new ones could be applied.
func OutDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	entries, err := os.ReadDir(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return abs, nil
	case err != nil:
		return "", Optionf("{Out} %s: %w", dir, err)
	case len(entries) > 0:
		return "", Optionf("{Out} %s is not empty: bundles from an earlier run could be mistaken for this one's; use a new or empty directory", dir)
	}
	return abs, nil
}
