package stage

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/git"
	"github.com/tfgate/tfgate/internal/terraform"
)

// The read guard: the tree terraform runs in (scope.go) holds only what the review covered,
// but a path can still name the checkout itself ($GITHUB_WORKSPACE/docs/x.md, .git/config,
// /proc/<tfgate>/cwd). Where the kernel has Landlock, terraform — and so its providers and
// everything they start — runs unable to reach the checkout's working tree or its git
// directories by any path (package guard), nor change the shared provider cache, which it
// may read and run from (tfgate alone adds to it, terraform.OpenPluginCache), while the
// rest of the machine and its own tree, data directory and plan files stay usable. Where
// the kernel does not (macOS, kernels before 5.13 or without Landlock), terraform runs
// without it and the run's notes say so; apply.read_guard: required makes apply refuse
// instead (gate).

// runGuard is what one run knows of the guard, found out once.
type runGuard struct {
	once sync.Once
	deny []string // the checkout's top level and its git directories
	off  error    // why terraform runs without the guard here; nil = it does not
}

// setUp finds the directories to deny and whether the kernel can deny them.
func (g *runGuard) setUp(ctx context.Context, root string) {
	g.once.Do(func() {
		if err := terraform.GuardAvailable(); err != nil {
			g.off = err
			return
		}
		top, err := git.TopLevel(ctx, root)
		if err != nil {
			top = root // not a repository: the root is what the review covered
		}
		g.deny = append(g.deny, top)
		if dirs, err := (git.Git{Dir: root}).GitDirs(ctx); err == nil {
			g.deny = append(g.deny, dirs...)
		}
	})
}

// GuardUnavailable says why terraform cannot run under the read guard on this machine, ""
// when it can: a fact apply's gate judges under apply.read_guard: required.
func GuardUnavailable() string {
	if err := terraform.GuardAvailable(); err != nil {
		return err.Error()
	}
	return ""
}

// GuardNote is the run's note when its projects ran terraform without the read guard, ""
// otherwise.
func (opts *PlanOptions) GuardNote() string {
	if opts.guard == nil || opts.guard.off == nil {
		return ""
	}
	return fmt.Sprintf("terraform ran without the read guard (%v): it could read files of the checkout outside what the review covered by their absolute path; apply.read_guard: required in %s makes apply refuse to run on such a machine", opts.guard.off, config.FileName)
}

// guardSpec is the read guard r's terraform runs under: nil without one (the run's note
// says why), an error when apply requires it and it is off.
func (r *ProjectRun) guardSpec(ctx context.Context) (*terraform.ReadGuard, error) {
	g := r.Opts.guard
	if r.scope == nil { // unscoped
		return nil, nil
	}
	g.setUp(ctx, r.Opts.Root)
	if g.off != nil {
		if r.Opts.RequireGuard {
			return nil, fmt.Errorf("apply.read_guard is required, and terraform cannot run under the read guard here: %w", g.off)
		}
		return nil, nil
	}
	allow := []string{r.scope.base, r.dataDir}
	if r.Dir != "" && isDir(r.Dir) {
		allow = append(allow, r.Dir)
	}
	var readOnly []string
	if cache := r.Opts.PluginCacheDir; cache != "" && isDir(cache) {
		readOnly = append(readOnly, cache) // tfgate alone adds to it (terraform.OpenPluginCache)
	}
	if r.PlanFile != "" {
		allow = append(allow, filepath.Dir(r.PlanFile))
	}
	if cli := r.Opts.TerraformEnv["TF_CLI_CONFIG_FILE"]; filepath.IsAbs(cli) && regularFile(cli) {
		// The workflow's choice, even inside the checkout (a committed .terraformrc is a
		// file outside every project: a change to it needs a review).
		allow = append(allow, cli)
	}
	deny := slices.Concat(g.deny, r.othersTemporary(allow))
	if r.reuse != nil {
		deny = append(deny, r.reuse.parent) // the other projects' kept data directories
	}
	if kept := r.Opts.Terraform.KeptDataDirs; kept != "" && isDir(kept) {
		deny = append(deny, kept) // and so when this run keeps none (--fresh, busy, apply)
	}
	if r.Opts.OutDir != "" && isDir(r.Opts.OutDir) {
		deny = append(deny, r.Opts.OutDir) // the other projects' bundles; r.Dir stays allowed
	}
	return &terraform.ReadGuard{Deny: deny, Allow: allow, ReadOnly: readOnly}, nil
}

// othersTemporary are tfgate's other directories in the temporary directory (the other
// projects' trees and data directories, apply's unpacked bundles, a base commit's export)
// that hold none of allow: terraform has no business there, and a tree of another
// project holds that project's files. One made after terraform starts is out of its reach
// too, once the temporary directory leads to a denied one.
func (r *ProjectRun) othersTemporary(allow []string) []string {
	var out []string
	for _, tmp := range slices.Compact([]string{os.TempDir(), scopeParent()}) {
		entries, err := os.ReadDir(tmp)
		if err != nil {
			continue
		}
		for _, e := range entries {
			dir := filepath.Join(tmp, e.Name())
			ours := slices.ContainsFunc(allow, func(a string) bool { // the tree, the data directory
				return dir == a || strings.HasPrefix(dir, a+string(filepath.Separator))
			})
			if e.IsDir() && strings.HasPrefix(e.Name(), "tfgate-") && !ours {
				out = append(out, dir)
			}
		}
	}
	return out
}

func isDir(dir string) bool {
	fi, err := os.Stat(dir)
	return err == nil && fi.IsDir()
}
