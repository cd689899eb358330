package cli

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/tfgate/tfgate/internal/ci"
	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/pipeline"
)

// loadPolicies picks where policies come from and loads them once for the run. When the run
// compares with a base, the base commit's policies judge it; the working tree only when
// asked, and never in CI.
func (a *app) loadPolicies(ctx context.Context, root string, cfg *config.Config, from, base string, changed []string) (pipeline.Policies, error) {
	env := ci.FromEnv(a.getenv)
	switch from {
	case "":
		// In CI always the base (the remote default branch when no base is given): a pull
		// request planned with --all must not be judged by the policies it carries.
		from = pipeline.PoliciesFromWorktree
		if base != "" || env.CI {
			return a.loadPolicies(ctx, root, cfg, pipeline.PoliciesFromBase, base, changed)
		}
	case pipeline.PoliciesFromWorktree:
		if env.CI {
			return pipeline.Policies{}, fmt.Errorf("--policies-from worktree is refused in CI: a change must not choose the policies that judge it; policies come from the base commit")
		}
	case pipeline.PoliciesFromBase:
		if base == "" {
			b, err := ci.Git{Dir: root}.DefaultBase(ctx)
			if err != nil {
				return pipeline.Policies{}, err
			}
			base = b
		}
	default:
		return pipeline.Policies{}, oneOf("--policies-from", from, pipeline.PoliciesFromBase, pipeline.PoliciesFromWorktree)
	}
	pols, err := pipeline.LoadPolicies(ctx, pipeline.PolicyOptions{
		Root: root, Config: cfg, ConfigFile: a.configFile(), From: from, BaseRev: base, Changed: changed, Print: a.printWriter(),
	})
	if err == nil && pols.Engine != nil {
		a.log.Info("policies", "source", pols.Source, "paths", pols.Paths)
	}
	return pols, err
}

// configFile is the config path as given (read at the base commit relative to the root).
func (a *app) configFile() string {
	if a.global.Config != "" {
		if abs, err := filepath.Abs(a.global.Config); err == nil {
			return abs
		}
	}
	return config.FileName
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
