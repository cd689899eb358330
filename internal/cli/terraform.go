package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/terraform"
)

// resolveTerraform finds the terraform (or tofu) binary to run.
func (a *app) resolveTerraform(ctx context.Context, cfg *config.Config, install bool) (terraform.Binary, error) {
	installDir := ""
	if cache, err := os.UserCacheDir(); err == nil {
		installDir = filepath.Join(cache, "tfgate", "terraform")
	}
	bin, err := terraform.Resolve(ctx, terraform.ResolveOptions{
		Override:   a.getenv("TFGATE_TERRAFORM"),
		Constraint: cfg.Terraform.Version,
		Binary:     cfg.Terraform.Binary,
		Install:    install || cfg.Terraform.Install,
		InstallDir: installDir,
		PathEnv:    a.getenv("PATH"),
	})
	if err != nil {
		if cfg.File != "" && (cfg.Terraform.Version != "" || cfg.Terraform.Binary == "tofu") {
			return bin, fmt.Errorf("%w\n(the terraform section of %s chose: binary %q, version %q)", err, cfg.File, cfg.Terraform.Binary, cfg.Terraform.Version)
		}
		return bin, err
	}
	a.log.Info("terraform", "path", bin.Path, "version", bin.Version, "flavor", bin.Flavor)
	return bin, nil
}

// terraformEnv is the environment terraform runs with: ours, made non-interactive.
func (a *app) terraformEnv() map[string]string {
	env := make(map[string]string, len(a.environ)+2)
	for _, kv := range a.environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	env["TF_IN_AUTOMATION"] = "1"
	env["TF_INPUT"] = "0"
	return env
}
