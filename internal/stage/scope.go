package stage

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tfgate/tfgate/internal/git"
	"github.com/tfgate/tfgate/internal/project"
)

// The scope: terraform reads exactly what the review covered. A review covers a project's
// inputs (project.InputFiles: its directory's contents, its local modules, its var files)
// and the files outside every project that the base commit's ignore: does not mark inert
// (SharedSums) — what the plan bundle's input hash covers, and nothing else. A list of
// inputs is only a promise, though: terraform, its providers and everything they start
// (provisioners, external data sources) can read any file by path, and every red team so
// far found one the list left out (a README read by file(), a script behind a linked
// directory, another project's template). So terraform never runs in the checkout. Each
// project's run (plan, drift, apply) gets a new tree that holds a copy of exactly those
// files, laid out as in the repository, and terraform runs in the project's directory
// there: `file("../../docs/x.md")` of an inert file, or of another project's file, finds
// nothing. The read guard (guard.go) keeps terraform out of the checkout itself, by
// absolute path or through .git.
//
// Terraform also writes into its working directory, and a local backend keeps its state
// there. Those working files — the local state of the project's workspace (wherever its
// literal `path` puts it in the repository) with its backup, errored.tfstate, the lock
// file — are carried into the tree before terraform runs and those terraform created or
// changed are carried back when the project is done, so a laptop's local state and lock
// file live where they always did. Nothing else terraform writes in the tree survives.

// scope is one project's tree.
type scope struct {
	base string // holds the tree and tmp
	top  string // the tree's root: the repository's root, or above it for "../" files
	root string // the repository root (Options.Root) in the tree
	tmp  string // terraform's TMPDIR: inside the tree, never the checkout's
	// inputs are the project's own inputs (root-relative, sorted): the tree holds them and
	// the shared files.
	inputs []string
	// carried are the working files (root-relative) with the sha256 each had when carried
	// in ("" = absent): only what terraform changed goes back.
	carried map[string]string
}

// maxSocketParent is the longest directory the trees go in: a provider's plugin socket is
// made in terraform's TMPDIR (<parent>/tfgate-scope-NNNNNNNNNN/t/pluginNNNNNNNNNN, 43
// more bytes), and the kernel refuses a unix socket path longer than 107 bytes — the
// provider then fails to start with nothing but "Unrecognized remote plugin message".
const maxSocketParent = 64

// scopeParent is where the trees go: the temporary directory, or /tmp when that is too
// long for a provider's socket.
func scopeParent() string {
	if tmp := os.TempDir(); len(tmp) <= maxSocketParent || !isDir("/tmp") {
		return tmp
	}
	return "/tmp"
}

// scopeDirPrefix names the projects' trees in the temporary directory.
const scopeDirPrefix = "tfgate-scope-"

// ensureScope builds r's tree from the checkout, once; RunStages carries the working files
// back and removes it when the project is done.
func (r *ProjectRun) ensureScope(ctx context.Context) error {
	if r.scope != nil || r.Opts.unscoped {
		return nil
	}
	var err error
	r.unscope, err = r.newScope(ctx)
	return err
}

// newScope builds r's tree and returns the function that carries the working files back
// and removes it.
func (r *ProjectRun) newScope(ctx context.Context) (release func() error, err error) {
	inputs, err := project.InputFiles(ctx, r.Opts.Root, r.Project)
	if err != nil {
		return nil, err
	}
	inputs = Outside(inputs, r.Opts.Root, r.Opts.OutDir) // bundles being written are no input
	files := slices.Clone(inputs)
	for f := range r.Opts.SharedSums {
		files = append(files, f)
	}
	work, back, err := workingFiles(ctx, r.Opts.Root, r.Project, r.Opts.ReadOnly)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r.Project.Name, err)
	}
	base, err := os.MkdirTemp(scopeParent(), scopeDirPrefix)
	if err != nil {
		return nil, fmt.Errorf("%s: the tree terraform runs in cannot be made in %s: %w; point TMPDIR at a writable directory", r.Project.Name, scopeParent(), err)
	}
	s := &scope{base: base, top: filepath.Join(base, "tree"), tmp: filepath.Join(base, "t"), inputs: inputs, carried: map[string]string{}}
	s.root = filepath.Join(s.top, rootBelow(r.Opts.Root, append(files, work...)))
	for _, f := range back { // what terraform changes there goes back
		if s.carried[f], err = fileSum(filepath.Join(r.Opts.Root, filepath.FromSlash(f))); err != nil {
			os.RemoveAll(base)
			return nil, err
		}
	}
	if err := s.fill(ctx, r.Opts.Root, files, work); err != nil {
		os.RemoveAll(base)
		return nil, fmt.Errorf("%s: build the tree terraform runs in: %w", r.Project.Name, err)
	}
	r.scope = s
	return func() error {
		err := s.carryBack(r.Opts.Root)
		os.RemoveAll(base)
		if err != nil {
			return fmt.Errorf("%s: carry terraform's working files back to the checkout: %w", r.Project.Name, err)
		}
		return nil
	}, nil
}

// fill copies files and the working files that exist into the tree.
func (s *scope) fill(ctx context.Context, root string, files, work []string) error {
	if err := os.MkdirAll(s.tmp, 0o700); err != nil {
		return err
	}
	if err := os.MkdirAll(s.root, 0o700); err != nil {
		return err
	}
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return err
		}
		src := filepath.Join(root, filepath.FromSlash(f))
		if target, err := os.Readlink(src); err == nil && isDir(src) {
			// A shared link to a directory stays a link: in the tree it leads only to
			// what the tree holds (one out of the repository leads nowhere).
			if err := os.MkdirAll(filepath.Dir(s.path(f)), 0o755); err != nil {
				return err
			}
			if !filepath.IsAbs(target) {
				if err := os.Symlink(target, s.path(f)); err != nil {
					return err
				}
			}
			continue
		}
		switch {
		case isDir(src): // a submodule: hashed as the commit it records, read as its files
			if err := copySubmodule(src, s.path(f)); err != nil {
				return err
			}
			continue
		case !regularFile(src):
			continue // a dangling link: nothing to read
		}
		if err := copyInto(src, s.path(f)); err != nil {
			return err
		}
	}
	for _, f := range work {
		src := filepath.Join(root, filepath.FromSlash(f))
		sum, err := fileSum(src)
		if err != nil {
			return err
		}
		s.carried[f] = sum
		if fi, err := os.Stat(filepath.Dir(src)); err == nil && fi.IsDir() {
			// A workspace's directory may exist before its state does.
			if err := os.MkdirAll(filepath.Dir(s.path(f)), 0o755); err != nil {
				return err
			}
		}
		if _, err := os.Lstat(s.path(f)); sum == "" || err == nil {
			continue // none, or an input already copied (the lock file)
		}
		if err := copyInto(src, s.path(f)); err != nil {
			return err
		}
	}
	return nil
}

// workingFiles are the files terraform writes in p's working directory that tfgate
// carries into p's tree and back (root-relative): the lock file (back only after a plan:
// apply and drift leave the project's inputs as they were verified), errored.tfstate (the
// state an apply could not save) and, on the local backend, the state of p's workspace
// with its backup (back only: terraform only writes it). A literal path elsewhere in the
// repository counts when it names a .tfstate file git does not track, outside .git: a
// configuration cannot have another file of the repository (another project's input, an
// inert file, a hook) copied into its tree, or written back, as "its state". A state
// outside the repository (an absolute path) is not carried: terraform writes it where it is.
func workingFiles(ctx context.Context, root string, p project.Project, readOnly bool) (both, back []string, err error) {
	ws := p.Workspace
	if ws == "" {
		ws = "default"
	}
	// The local default, whatever the configuration says: a backend block tfgate cannot
	// read literally may still be local, and carrying what does not exist costs a stat.
	state := path.Join(p.Dir, "terraform.tfstate")
	if ws != "default" {
		state = path.Join(p.Dir, "terraform.tfstate.d", ws, "terraform.tfstate")
	}
	both = []string{path.Join(p.Dir, "errored.tfstate"), state}
	back = []string{state + ".backup"}
	if !readOnly {
		back = append(back, path.Join(p.Dir, ".terraform.lock.hcl")) // an input: in the tree already
	}
	literal, ok := project.LocalStatePath(root, p)
	if !ok || path.IsAbs(literal) || literal == state {
		return both, back, nil
	}
	if !strings.HasSuffix(literal, ".tfstate") || slices.Contains(strings.Split(literal, "/"), ".git") {
		return nil, nil, fmt.Errorf("the local backend's path %s is not a .tfstate file of the project's own: tfgate carries terraform's state between the checkout and the tree terraform runs in only under such a name, outside .git", literal)
	}
	if tracked, _ := (git.Git{Dir: root}).Tracked(ctx, literal); tracked {
		return nil, nil, fmt.Errorf("the local backend's path %s is a file git tracks: a state is never a file of the repository", literal)
	}
	return append(both, literal), append(back, literal+".backup"), nil
}

// carryBack copies the working files terraform created or changed in the tree to the
// checkout, atomically each, never executable, and never through a symbolic link among
// the checkout's directories (a link could lead the file anywhere).
func (s *scope) carryBack(root string) error {
	var errs []error
	for _, f := range sortedKeys(s.carried) {
		if err := s.carryOne(root, f); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", f, err))
		}
	}
	return errors.Join(errs...)
}

func (s *scope) carryOne(root, f string) error {
	dst := filepath.Join(root, filepath.FromSlash(f))
	sum, err := fileSum(s.path(f))
	if err != nil {
		return err
	}
	changed := sum != "" && sum != s.carried[f]
	// A new workspace's directory, made before its first state, comes back too.
	if !changed && !(isDir(filepath.Dir(s.path(f))) && !isDir(filepath.Dir(dst))) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	if err := noLinkBetween(root, filepath.Dir(dst)); err != nil {
		return err
	}
	if !changed {
		return nil
	}
	tmp := dst + ".tfgate-carry"
	os.Remove(tmp)
	if err := copyInto(s.path(f), tmp); err != nil {
		return err
	}
	if fi, err := os.Stat(tmp); err != nil || os.Chmod(tmp, fi.Mode().Perm()&^0o111) != nil {
		return fmt.Errorf("%s: cannot make it not executable", tmp) // nothing carried back may run
	}
	return os.Rename(tmp, dst)
}

// noLinkBetween refuses a directory dir below root (or above it, by "../") that a symbolic
// link leads somewhere else than its path says.
func noLinkBetween(root, dir string) error {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return err
	}
	rel, err := filepath.Rel(root, dir)
	if err != nil {
		return err
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return err
	}
	if want := filepath.Join(realRoot, rel); real != want {
		return fmt.Errorf("%s leads to %s through a symbolic link: tfgate does not write terraform's files through links", dir, real)
	}
	return nil
}

// path is where the root-relative file f is in the tree.
func (s *scope) path(f string) string {
	return filepath.Join(s.root, filepath.FromSlash(f))
}

// TempDir is terraform's TMPDIR, the tree's own ("" before the tree is made): where a stage
// has terraform write a file of its own making (apply's new plan of the merge), since the
// read guard keeps terraform out of tfgate's other scratch directories.
func (r *ProjectRun) TempDir() string {
	if r.scope == nil {
		return ""
	}
	return r.scope.tmp
}

// dir is the project's directory in the tree: where terraform runs.
func (s *scope) dir(p project.Project) string {
	return s.path(p.Dir)
}

// rootBelow is where the repository root sits in the tree: as deep below the tree's top,
// under the root's own last directory names, as the files climb above it with "../".
func rootBelow(root string, files []string) string {
	depth := 0
	for _, f := range files {
		n := 0
		for strings.HasPrefix(f, "../") {
			f, n = f[3:], n+1
		}
		depth = max(depth, n)
	}
	parts := strings.Split(filepath.ToSlash(filepath.Clean(root)), "/")
	if depth >= len(parts) {
		depth = len(parts) - 1
	}
	return filepath.FromSlash(path.Join(parts[len(parts)-depth:]...))
}

// regularFile reports whether f is a regular file (through links).
func regularFile(f string) bool {
	fi, err := os.Stat(f)
	return err == nil && fi.Mode().IsRegular()
}
