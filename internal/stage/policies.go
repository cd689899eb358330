package stage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/cost"
	"github.com/tfgate/tfgate/internal/git"
	"github.com/tfgate/tfgate/internal/policy"
)

// Where policies are read from.
const (
	PoliciesFromBase     = "base"     // the base commit: a change cannot weaken its own checks
	PoliciesFromWorktree = "worktree" // the working tree: for policy authors on a laptop
)

// defaultPolicyDir is used when the config names no policy paths and the dir exists.
const DefaultPolicyDir = "policies"

// PolicyOptions say which policies judge a run.
type PolicyOptions struct {
	Root       string
	Config     *config.Config // the working tree's config
	ConfigFile string         // the config's path (absolute, or relative to Root)
	From       string         // PoliciesFromBase or PoliciesFromWorktree
	BaseRev    string         // the base ref, for From == base
	Changed    []string       // root-relative files changed by the change under review
	Print      io.Writer      // print() output from policies; nil drops it
}

// Policies are the loaded policies of a run.
type Policies struct {
	Engine *policy.Engine // nil: no policies configured
	Source string         // "base commit 3f2c1aa (origin/main)" or "working tree"
	Paths  []string
	Notes  []string
	// Prices is the price catalogue among the policies' data (data.tfgate.prices,
	// docs/cost.md); nil when they have none.
	Prices *cost.Catalogue
	// baseNames maps a project's dir and workspace to its name in the base commit's
	// config: policies see the project as the base knows it, so a change cannot rename
	// itself out of a per-project rule. nil when policies come from the working tree.
	baseNames map[string]string
	moved     map[string]string // Selection.MovedFrom
	sum       string            // the policy files' (reuse.go)
}

// ProjectName is the name policies know the project by: its name in the base commit's
// config, or — for a project the base does not define — its dir, as autodetection names
// it. From the working tree, its own name.
func (p Policies) ProjectName(name, dir, workspace string) string {
	if p.baseNames == nil {
		return name
	}
	if base, ok := p.baseNames[dirKey(dir, workspace)]; ok {
		return base
	}
	if base, ok := p.moved[name+"\x00"+workspace]; ok {
		return base
	}
	return dir
}

func dirKey(dir, workspace string) string { return dir + "\x00" + workspace }

// LoadPolicies loads and compiles the policies once for a whole run. It fails closed:
// configured paths that hold no policies, or policies that do not compile, are errors.
func LoadPolicies(ctx context.Context, opts PolicyOptions) (Policies, error) {
	worktreeFS := os.DirFS(opts.Root)
	var (
		fsys fs.FS
		out  Policies
		err  error
	)
	switch opts.From {
	case PoliciesFromWorktree:
		fsys = worktreeFS
		out.Paths = PolicyPaths(opts.Config, fsys)
		out.Source = describe(out.Paths, "the working tree")
	case PoliciesFromBase:
		var changed <-chan []string
		if opts.Changed == nil {
			// No change detection this run (--all, named projects): still find what the
			// change edits, so the notes are never missing — beside the base's tree, whose
			// git processes it does not wait for.
			cctx, cancel := context.WithCancel(ctx)
			defer cancel()
			changed = changedSinceAsync(cctx, opts.Root, opts.BaseRev)
		}
		var base *config.Config
		if fsys, base, out.Source, err = baseTree(ctx, opts); err != nil {
			return out, err
		}
		out.Paths = PolicyPaths(base, fsys)
		out.Source = describe(out.Paths, out.Source)
		out.baseNames = projectNames(base)
		if changed != nil {
			opts.Changed = <-changed
		}
		out.Notes = baseNotes(opts, out, PolicyPaths(opts.Config, worktreeFS))
	default:
		return out, fmt.Errorf("policies from %q: want %s or %s", opts.From, PoliciesFromBase, PoliciesFromWorktree)
	}
	if len(out.Paths) == 0 {
		out.Source = ""
		return out, nil
	}
	out.sum = policyFilesSum(fsys, out.Paths)
	out.Engine, err = policy.Load(ctx, policy.Source{FS: fsys, Paths: out.Paths, Name: out.Source}, policy.Options{PrintWriter: opts.Print})
	if err == nil {
		if out.Prices, err = cost.LoadCatalogue(fsys, out.Paths, where(opts.From, out.Source)); err != nil {
			err = fmt.Errorf("load the price catalogue (%s): %w", out.Source, err)
		}
	}
	return out, err
}

// baseTree reads the config and the policy files from the base commit's tree: in one git
// process where it can (git.Git.CommitTreeFS), the same answers as BaseConfig then TreeFS.
func baseTree(ctx context.Context, opts PolicyOptions) (fs.FS, *config.Config, string, error) {
	repo := git.Git{Dir: opts.Root}
	prefix, cfgFile, err := baseConfigFile(ctx, repo, opts.ConfigFile, opts.BaseRev)
	if err != nil {
		return nil, nil, "", err
	}
	var cfg *config.Config
	var source string
	_, fsys, err := repo.CommitTreeFS(ctx, opts.BaseRev, prefix+cfgFile, func(sha string, data []byte, ferr error) ([]string, error) {
		var err error
		if cfg, source, err = parseBaseConfig(opts.BaseRev, sha, cfgFile, data, ferr); err != nil {
			return nil, err
		}
		if len(cfg.Policies.Paths) > 0 {
			return cfg.Policies.Paths, nil
		}
		return []string{DefaultPolicyDir}, nil
	})
	if err != nil {
		return nil, nil, "", err
	}
	return fsys, cfg, source, nil
}

// BaseConfig reads the configuration as the base commit rev has it (the defaults when it has
// no config file): the rules that judge a change come from there, never from the change.
// It returns the commit's full sha and a description such as "base commit 3f2c1aa
// (origin/main)".
func BaseConfig(ctx context.Context, root, configFile, rev string) (sha string, cfg *config.Config, source string, err error) {
	repo := git.Git{Dir: root}
	prefix, cfgFile, err := baseConfigFile(ctx, repo, configFile, rev)
	if err != nil {
		return "", nil, "", err
	}
	// The commit and its configuration file in one git process.
	sha, data, err := repo.CommitFile(ctx, rev, prefix+cfgFile)
	if sha == "" {
		return "", nil, "", err
	}
	if cfg, source, err = parseBaseConfig(rev, sha, cfgFile, data, err); err != nil {
		return "", nil, "", err
	}
	return sha, cfg, source, nil
}

// baseConfigFile is the configuration file as the base commit's tree names it: the git
// root's prefix and the root-relative file. Its errors come after rev's own (an unknown
// rev is what to say first).
func baseConfigFile(ctx context.Context, repo git.Git, configFile, rev string) (prefix, cfgFile string, err error) {
	prefix, perr := repo.Prefix(ctx)
	cfgFile, cerr := configPath(repo.Dir, configFile)
	if perr != nil || cerr != nil {
		if _, err = repo.Commit(ctx, rev); err == nil {
			if err = perr; err == nil {
				err = cerr
			}
		}
		return "", "", err
	}
	return prefix, cfgFile, nil
}

// parseBaseConfig is the configuration of base commit sha (named rev) from its file's
// content data, or the defaults when ReadFile's err says it has none.
func parseBaseConfig(rev, sha, cfgFile string, data []byte, err error) (*config.Config, string, error) {
	source := fmt.Sprintf("base commit %s (%s)", sha[:7], rev)
	switch {
	case err == nil:
		// Parsed without a root: the base commit's files are not on disk.
		cfg, err := config.Parse(data, cfgFile+" at "+source, "")
		return cfg, source, err
	case !errors.Is(err, fs.ErrNotExist):
		return nil, "", err
	}
	return config.Default(), source, nil
}

// changedSince lists the files changed since base (nil when git cannot tell).
func changedSince(ctx context.Context, root, base string) []string {
	changes, err := git.Git{Dir: root}.ChangedFiles(ctx, base)
	if err != nil {
		return nil
	}
	files, err := relativeToRoot(ctx, root, changes.Files)
	if err != nil {
		return nil
	}
	return files
}

// changedSinceAsync is changedSince in a goroutine of its own: its answer comes on the
// channel.
func changedSinceAsync(ctx context.Context, root, base string) <-chan []string {
	ch := make(chan []string, 1)
	go func() { ch <- changedSince(ctx, root, base) }()
	return ch
}

// describe names where policies come from for people: "policies/ in the working tree",
// "policies/ at base commit 3f2c1aa (origin/main)".
func describe(paths []string, where string) string {
	if len(paths) == 0 {
		return where
	}
	dirs := make([]string, len(paths))
	for i, p := range paths {
		dirs[i] = strings.TrimSuffix(p, "/") + "/"
	}
	prep := "at"
	if where == "the working tree" {
		prep = "in"
	}
	return strings.Join(dirs, ", ") + " " + prep + " " + where
}

// configPath is the config file relative to the root, as it is named in a commit's tree.
func configPath(root, file string) (string, error) {
	if file == "" {
		return config.FileName, nil
	}
	if !filepath.IsAbs(file) {
		return filepath.ToSlash(filepath.Clean(file)), nil
	}
	rel, err := filepath.Rel(root, file)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", Optionf("{ConfigFile} %s is outside the repository: the base commit's rules cannot be read from it", file)
	}
	return filepath.ToSlash(rel), nil
}

// projectNames maps dir+workspace to project name as the config names them.
func projectNames(cfg *config.Config) map[string]string {
	names := map[string]string{}
	for _, p := range cfg.Projects {
		names[dirKey(p.Dir, p.Workspace)] = p.Name
	}
	return names
}

// baseNotes tell the reader when the change edits what judges it: policy files (of the
// base or of the working tree) or the config file.
func baseNotes(opts PolicyOptions, out Policies, worktreePaths []string) []string {
	var notes []string
	judged := "this plan is judged by the " + out.Source
	if len(out.Paths) == 0 {
		judged = "the " + out.Source + " has no policies, so this plan is judged by none"
	}
	paths := slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(out.Paths), worktreePaths...))))
	if edited := policy.PolicyFiles(paths, opts.Changed); len(edited) > 0 {
		notes = append(notes, fmt.Sprintf("this change edits %s; policy changes take effect after merge (%s)", strings.Join(edited, ", "), judged))
	}
	cfgFile, _ := configPath(opts.Root, opts.ConfigFile)
	if slices.Contains(opts.Changed, cfgFile) {
		notes = append(notes, fmt.Sprintf("this change edits %s; its policy and approval settings take effect after merge (%s)", cfgFile, judged))
	}
	return notes
}

// PolicyPaths are the configured paths, or the default dir when it exists in fsys.
func PolicyPaths(cfg *config.Config, fsys fs.FS) []string {
	if len(cfg.Policies.Paths) > 0 {
		return cfg.Policies.Paths
	}
	if st, err := fs.Stat(fsys, DefaultPolicyDir); err == nil && st.IsDir() {
		return []string{DefaultPolicyDir}
	}
	return nil
}

// WorktreePolicyPaths are the policy paths of the working tree; none is an error.
func WorktreePolicyPaths(root string, cfg *config.Config) ([]string, error) {
	paths := PolicyPaths(cfg, os.DirFS(root))
	if len(paths) == 0 {
		return nil, fmt.Errorf("no policies in %s: set policies.paths in %s or create %s/", root, config.FileName, DefaultPolicyDir)
	}
	return paths, nil
}
