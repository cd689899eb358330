package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/tfgate/tfgate/internal/ci"
	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/policy"
)

// Where policies are read from.
const (
	PoliciesFromBase     = "base"     // the base commit: a change cannot weaken its own checks
	PoliciesFromWorktree = "worktree" // the working tree: for policy authors on a laptop
)

// defaultPolicyDir is used when the config names no policy paths and the dir exists.
const defaultPolicyDir = "policies"

// PolicyOptions say which policies judge a run.
type PolicyOptions struct {
	Root       string
	Config     *config.Config // the working tree's config (used for From == worktree)
	ConfigFile string         // the config's path relative to Root, read at the base commit
	From       string         // PoliciesFromBase or PoliciesFromWorktree
	BaseRev    string         // the base ref, for From == base
	Changed    []string       // files changed by the change under review
	Print      io.Writer      // print() output from policies; nil drops it
}

// Policies are the loaded policies of a run.
type Policies struct {
	Engine *policy.Engine // nil: no policies configured
	Source string         // "base commit 3f2c1aa (origin/main)" or "working tree"
	Paths  []string
	Notes  []string
}

// LoadPolicies loads and compiles the policies once for a whole run. It fails closed:
// configured paths that hold no policies, or policies that do not compile, are errors.
func LoadPolicies(ctx context.Context, opts PolicyOptions) (Policies, error) {
	var (
		fsys  fs.FS
		paths []string
		out   Policies
		err   error
	)
	switch opts.From {
	case PoliciesFromWorktree:
		fsys = os.DirFS(opts.Root)
		paths = policyPaths(opts.Config, fsys)
		out.Source = "working tree"
	case PoliciesFromBase:
		if fsys, paths, out.Source, err = basePolicies(ctx, opts); err != nil {
			return out, err
		}
	default:
		return out, fmt.Errorf("policies from %q: want %s or %s", opts.From, PoliciesFromBase, PoliciesFromWorktree)
	}
	if len(paths) == 0 {
		return Policies{}, nil
	}
	out.Paths = paths
	out.Engine, err = policy.Load(ctx, policy.Source{FS: fsys, Paths: paths, Name: out.Source}, policy.Options{PrintWriter: opts.Print})
	if err != nil {
		return out, err
	}
	if edited := policy.PolicyFiles(paths, opts.Changed); len(edited) > 0 && opts.From == PoliciesFromBase {
		out.Notes = append(out.Notes, fmt.Sprintf("this change edits %s; policy changes take effect after merge (this plan is judged by the %s)",
			strings.Join(edited, ", "), out.Source))
	}
	return out, nil
}

// basePolicies reads the config and the policy files from the base commit's tree.
func basePolicies(ctx context.Context, opts PolicyOptions) (fs.FS, []string, string, error) {
	git := ci.Git{Dir: opts.Root}
	sha, err := git.Commit(ctx, opts.BaseRev)
	if err != nil {
		return nil, nil, "", err
	}
	source := fmt.Sprintf("base commit %s (%s)", sha[:7], opts.BaseRev)
	prefix, err := git.Prefix(ctx)
	if err != nil {
		return nil, nil, "", err
	}
	cfgFile := opts.ConfigFile
	if cfgFile == "" {
		cfgFile = config.FileName
	}
	cfg := config.Default()
	data, err := git.ReadFile(ctx, sha, prefix+filepath.ToSlash(cfgFile))
	switch {
	case err == nil:
		// Parsed without a root: the base commit's files are not on disk.
		if cfg, err = config.Parse(data, cfgFile+" at "+source, ""); err != nil {
			return nil, nil, "", err
		}
	case !errors.Is(err, fs.ErrNotExist):
		return nil, nil, "", err
	}
	candidates := cfg.Policies.Paths
	if len(candidates) == 0 {
		candidates = []string{defaultPolicyDir}
	}
	fsys, err := git.TreeFS(ctx, sha, candidates)
	if err != nil {
		return nil, nil, "", err
	}
	return fsys, policyPaths(cfg, fsys), source, nil
}

// policyPaths are the configured paths, or the default dir when it exists in fsys.
func policyPaths(cfg *config.Config, fsys fs.FS) []string {
	if len(cfg.Policies.Paths) > 0 {
		return cfg.Policies.Paths
	}
	if st, err := fs.Stat(fsys, defaultPolicyDir); err == nil && st.IsDir() {
		return []string{defaultPolicyDir}
	}
	return nil
}

// WorktreePolicyPaths are the policy paths of the working tree; none is an error.
func WorktreePolicyPaths(root string, cfg *config.Config) ([]string, error) {
	paths := policyPaths(cfg, os.DirFS(root))
	if len(paths) == 0 {
		return nil, fmt.Errorf("no policies in %s: set policies.paths in %s or create %s/", root, config.FileName, defaultPolicyDir)
	}
	return paths, nil
}
