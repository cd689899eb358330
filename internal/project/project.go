// Package project decides which Terraform projects a repository holds and which of them a
// change touches. It knows the local-module graph (module blocks whose source is "./" or
// "../") so that a change to a shared module plans every project that uses it.
//
// Autodetection (no projects in the configuration) treats every directory holding *.tf,
// *.tf.json, *.tofu or *.tofu.json files as a project, except directories used as a local
// module by another directory and those the configuration's autodetect globs leave out. It does not descend into hidden directories (.git, .terraform, .github, …),
// "testdata" (test fixtures) or "node_modules". A local module is followed wherever it
// lives, even under a directory the walk skips.
package project

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"

	"github.com/tfgate/tfgate/internal/config"
)

// DefaultWhenModified are the globs (relative to the project directory) that trigger a
// plan when a project does not configure when_modified. They name Terraform's own inputs
// rather than "*.tf*", which would also match .tfstate, .tfplan, .tftest.hcl and dotfiles
// such as .tflint.hcl or .tfgate.yaml. A project left with these defaults (OwnInputs) is
// also touched by the rest of its directory's contents (templates/, see contents.go); the
// contents of the local modules a project uses always count.
var DefaultWhenModified = []string{
	"*.tf",
	"*.tf.json",
	"*.tofu",
	"*.tofu.json",
	"*.tfvars",
	"*.tfvars.json",
	"*.tfbackend",
	".terraform.lock.hcl",
}

// Project is one Terraform root module, in one workspace, that tfgate plans and applies.
type Project struct {
	Name      string
	Dir       string   // slash path relative to the repository root ("." for the root)
	Workspace string   // "default" unless configured
	VarFiles  []string // relative to Dir
	// WhenModified are doublestar globs relative to Dir ("../" allowed) whose changes
	// trigger a plan, DefaultWhenModified unless configured. Empty means the project is
	// only planned when named explicitly: Changed never selects it, not even for a module
	// change.
	WhenModified []string
	DependsOn    []string
	Mode         config.Mode
	SkipDrift    bool // drift: false in the config: `tfgate drift` checks it only when named
	// Modules are the local module directories (root-relative, sorted) the project uses,
	// directly or through other modules. May be incomplete when Problems is not empty.
	// With -C below the git top level they may start with "../".
	Modules []string
	// OwnInputs is set when WhenModified is the default: then every file of Dir's contents
	// (its templates/ too, see contents.go) touches the project, as its modules' files do,
	// so that Changed selects it whenever its bundle input hash changes.
	OwnInputs bool
	// Nested are the directories inside Dir or one of Modules that hold Terraform files of
	// their own (root-relative, sorted): they are other projects or modules, and their
	// files are not this project's inputs.
	Nested []string
	// Links are the root-relative paths that symbolic links among the project's inputs
	// lead to (every hop, sorted): editing one changes an input of the project.
	Links []string
	// Linked are the directories (root-relative, symlink-free, sorted) that symbolic links
	// to directories among the project's contents lead to (envs/dev/scripts for
	// envs/prod/scripts → ../dev/scripts): their contents are the project's inputs too,
	// hashed under the links' paths, and a change to them touches the project.
	Linked []string
	// Problems are what is wrong inside the project's own files or those of the local
	// modules it uses, one message each, located as "file:line: ..." (or "file: ..." or
	// "dir: ..." when no line applies) with a hint on how to fix it: a module source that
	// names a missing directory or leaves the repository, a file that cannot be read, a
	// file that may call modules and does not parse. The project's own problems come first,
	// then its modules' in Modules order. A project with problems cannot be planned: callers
	// fail it with these messages and carry on with the other projects. Its Modules may miss
	// the links the problems hide, so Changed selects it more eagerly (see Changed).
	Problems []string
}

// skipDir reports whether autodetection should not descend into a directory called name.
func skipDir(name string) bool {
	return name != "." && (name[0] == '.' || name == "testdata" || name == "node_modules")
}

// Discover lists the projects of the repository at root: the configured ones in
// configuration order or, when cfg configures none, the autodetected ones sorted by
// directory. A problem inside one project's files or modules (a local module source that
// leaves the repository or names a missing directory, an unreadable file, a syntax error
// in a file that may call modules) does not fail Discover: the project is listed with the
// problem in its Problems, so one broken project never stops the others. Discover fails
// only for what concerns the whole repository: a root or directory the walk cannot read,
// a configured project directory that does not exist, cancellation.
func Discover(ctx context.Context, root string, cfg *config.Config) ([]Project, error) {
	d, err := DiscoverIn(ctx, root, root, cfg)
	return d.Projects, err
}

// Discovery is what DiscoverIn found.
type Discovery struct {
	Projects []Project
	// UsedAsModule are the autodetected directories that are not projects because another
	// directory uses them as a local module, each with the files (root-relative, sorted)
	// whose module blocks call it. Empty when the configuration lists the projects.
	UsedAsModule map[string][]string
}

// DiscoverIn is Discover for a root inside the git repository whose top level is top (the
// same directory, or one above it when -C points at a subdirectory). Projects are searched
// under root and named relative to it; module sources, symbolic links and so change
// detection may reach anywhere inside top ("../" paths relative to root).
func DiscoverIn(ctx context.Context, top, root string, cfg *config.Config) (Discovery, error) {
	g, err := newGraph(top, root)
	if err != nil {
		return Discovery{}, err
	}
	if cfg != nil && len(cfg.Projects) > 0 {
		projects, err := discoverConfigured(ctx, g, cfg)
		return Discovery{Projects: projects}, err
	}
	dirs, err := g.walk(ctx)
	if err != nil {
		return Discovery{}, err
	}
	if err := g.prefetch(ctx, dirs); err != nil {
		return Discovery{}, err
	}
	for _, d := range dirs {
		if err := g.load(ctx, d); err != nil {
			return Discovery{}, err
		}
	}
	// Every directory's module calls count, also those of directories autodetect excludes:
	// excluding the examples of a module library must not turn the library into a project.
	used := map[string]bool{}
	for _, d := range dirs {
		for _, m := range g.deps[d] {
			if m != d {
				used[m] = true
			}
		}
	}
	var auto config.Autodetect
	if cfg != nil {
		auto = cfg.Autodetect
	}
	disc := Discovery{UsedAsModule: map[string][]string{}}
	for _, d := range dirs {
		if !auto.Selects(d) {
			continue
		}
		if used[d] {
			disc.UsedAsModule[d] = g.callersOf(d)
			continue
		}
		disc.Projects = append(disc.Projects, Project{
			Name:         d,
			Dir:          d,
			Workspace:    "default",
			WhenModified: slices.Clone(DefaultWhenModified),
			OwnInputs:    true,
			Mode:         config.ModeManaged,
		})
	}
	if err := g.finish(ctx, disc.Projects); err != nil {
		return Discovery{}, err
	}
	return disc, nil
}

func discoverConfigured(ctx context.Context, g *graph, cfg *config.Config) ([]Project, error) {
	var errs []error
	projects := make([]Project, 0, len(cfg.Projects))
	for _, cp := range cfg.Projects {
		dir := path.Clean(cp.Dir)
		p := Project{
			Name:         cp.Name,
			Dir:          dir,
			Workspace:    cp.Workspace,
			VarFiles:     slices.Clone(cp.VarFiles),
			WhenModified: slices.Clone(cp.WhenModified),
			DependsOn:    slices.Clone(cp.DependsOn),
			Mode:         cp.Mode,
			SkipDrift:    cp.SkipDrift,
		}
		if p.Name == "" {
			p.Name = dir
		}
		if p.Workspace == "" {
			p.Workspace = "default"
		}
		if cp.WhenModified == nil {
			p.WhenModified = slices.Clone(DefaultWhenModified)
			p.OwnInputs = true
		}
		if p.Mode == "" {
			p.Mode = config.ModeManaged
		}
		if fi, err := os.Stat(filepath.Join(g.root, filepath.FromSlash(dir))); err != nil || !fi.IsDir() || !g.inRepo(dir) {
			errs = append(errs, fmt.Errorf("%s: project %s: directory %q does not exist in the repository: fix its dir or remove the project",
				configPos(cfg, cp), p.Name, cp.Dir))
			projects = append(projects, p)
			continue
		}
		if err := g.load(ctx, dir); err != nil {
			return nil, err
		}
		projects = append(projects, p)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if err := g.finish(ctx, projects); err != nil {
		return nil, err
	}
	return projects, nil
}

// finish fills in each project's Modules and what the contents of its directories say:
// Nested, Links, Linked, and the problems of links that leave the repository or loop.
func (g *graph) finish(ctx context.Context, projects []Project) error {
	scanned := map[string]contents{}
	for i := range projects {
		p := &projects[i]
		p.Modules = g.closure(p.Dir)
		nested, links, linked := map[string]bool{}, map[string]bool{}, map[string]bool{}
		for _, dir := range append([]string{p.Dir}, p.Modules...) {
			c, ok := scanned[dir]
			if !ok {
				var err error
				if c, err = g.scanner.scan(ctx, dir); err != nil {
					if ctx.Err() != nil {
						return ctx.Err()
					}
					g.problems[dir] = append(g.problems[dir], fmt.Sprintf("%s: %v; fix its permissions", dir, err))
				}
				g.problems[dir] = append(g.problems[dir], c.problems...)
				scanned[dir] = c
			}
			for _, n := range c.nested {
				nested[n] = true
			}
			for _, l := range c.links {
				links[l] = true
			}
			for _, l := range c.linked {
				linked[l] = true
			}
		}
		for _, vf := range p.VarFiles {
			if f := path.Join(p.Dir, vf); g.inRepo(f) {
				var c contents
				if fi, err := os.Lstat(g.scanner.abs(f)); err == nil && fi.Mode()&os.ModeSymlink != 0 {
					g.scanner.link(f, &c)
				}
				for _, l := range c.links {
					links[l] = true
				}
				p.Problems = append(p.Problems, c.problems...)
			}
		}
		p.Nested, p.Links, p.Linked = sortedKeys(nested), sortedKeys(links), sortedKeys(linked)
		p.Problems = append(p.Problems, g.problemsOf(p.Dir)...)
	}
	return nil
}

func configPos(cfg *config.Config, p config.Project) string {
	file := cfg.File
	if file == "" {
		file = config.FileName
	}
	if p.Line > 0 {
		return fmt.Sprintf("%s:%d", file, p.Line)
	}
	return file
}

// local reports whether a cleaned slash path stays inside the repository.
func local(p string) bool {
	return p != ".." && !filepath.IsAbs(p) && !startsWithDotDot(p)
}

func startsWithDotDot(p string) bool {
	return len(p) >= 3 && p[:3] == "../"
}

// sortedKeys returns the keys of a set, sorted.
func sortedKeys(set map[string]bool) []string {
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
