package project

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/tfgate/tfgate/internal/tffiles"
)

// What a module (or project) directory contains is defined here, once: InputFiles hashes
// these files and Changed selects on them, so the two cannot disagree.
//
// A directory's contents are its files and those of its plain subdirectories (templates/,
// files/, scripts/), at any depth, except:
//   - subdirectories that hold Terraform files of their own: they are other modules or
//     projects (listed in Nested), with contents of their own;
//   - hidden files and directories (.terraform/, .github/, …), but .terraform.lock.hcl,
//     which pins provider versions, and terraform.tfstate.d/;
//   - what terraform writes rather than reads (state, plan files) and what it never reads
//     (documentation: *.md; tests: *.tftest.hcl).
//
// A symbolic link to a file counts as that file. A link to a directory counts as that
// directory, by the same rules: the files of the directory it leads to are contents too,
// listed under the link's own path (envs/prod/scripts/deploy.sh for envs/prod/scripts →
// ../dev/scripts), so that a bundle hashes what terraform reads through the link; and a
// change to a file there (envs/dev/scripts/deploy.sh) touches the project holding the link
// (Project.Linked). A link that leaves the repository, a link to a directory that holds
// it (or to one above), links that lead to each other, and chains of links too long for
// the kernel to follow are problems of the project, named by the link.

// excluded reports whether a directory entry called name is left out of contents by its
// name alone.
func excluded(name string, isDir bool) bool {
	if strings.HasPrefix(name, ".") {
		return isDir || name != ".terraform.lock.hcl"
	}
	if isDir {
		return name == "terraform.tfstate.d"
	}
	return strings.HasSuffix(name, ".tfstate") ||
		strings.Contains(name, ".tfstate.") ||
		strings.HasSuffix(name, ".tfplan") || name == "tfplan" || // the names terraform docs and CI templates use for -out
		strings.HasSuffix(name, ".md") ||
		strings.HasSuffix(name, ".tftest.hcl") || strings.HasSuffix(name, ".tftest.json")
}

// inContents reports whether file (root-relative, cleaned; it may no longer exist) is part
// of the contents of dir, given the directories inside dir that hold Terraform files of
// their own. nested may also list other directories holding Terraform files (a project's
// Nested lists those of all its directories): files under them are never dir's contents.
func inContents(dir string, nested []string, file string) bool {
	rel := file
	if dir != "." {
		var ok bool
		if rel, ok = strings.CutPrefix(file, dir+"/"); !ok {
			return false
		}
	} else if !local(file) {
		return false
	}
	parts := strings.Split(rel, "/")
	for _, p := range parts[:len(parts)-1] {
		if excluded(p, true) {
			return false
		}
	}
	if excluded(parts[len(parts)-1], false) {
		return false
	}
	if len(parts) > 1 && tffiles.IsConfig(parts[len(parts)-1]) {
		// Its directory holds (or, for a deleted file, held) Terraform files of its own:
		// a nested module, whether or not nested still lists it.
		return false
	}
	for _, n := range nested {
		if (dir == "." || strings.HasPrefix(n, dir+"/")) && strings.HasPrefix(file, n+"/") {
			return false
		}
	}
	return true
}

// contents is what scanning one directory found.
type contents struct {
	files []string // root-relative, sorted; files reached through a link under the link's path
	// nested are the subdirectories holding their own Terraform files (not descended
	// into), by their real (symlink-free) path: a change names files by that path.
	nested []string
	// links are the root-relative paths symbolic links among files (and dangling ones)
	// lead to, each hop: editing one of them changes an input.
	links []string
	// linked are the directories (root-relative, symlink-free) that links to directories
	// lead to, whose contents are listed in files under the links' paths.
	linked   []string
	problems []string // links that leave the repository or make a loop
}

// scanner reads directories' contents. inRepo says whether a root-relative path stays
// inside the git repository (which may extend above root).
type scanner struct {
	root   string // real (symlink-free) absolute path
	inRepo func(rel string) bool
}

func newScanner(root string, inRepo func(string) bool) *scanner {
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		real = root
	}
	if abs, err := filepath.Abs(real); err == nil {
		real = abs
	}
	return &scanner{root: real, inRepo: inRepo}
}

// scan lists dir's contents; a missing or unreadable dir is an error. A dir reached
// through a link (a module source ./net, where net links to ../../modules/net) is listed
// under its own path, and its real path is among linked: a change names files by it.
func (s *scanner) scan(ctx context.Context, dir string) (contents, error) {
	var c contents
	real := s.real(dir)
	if err := s.walk(ctx, dir, real, true, nil, &c); err != nil {
		return c, err
	}
	if real != dir {
		c.linked = append(c.linked, real)
	}
	sort.Strings(c.files)
	sort.Strings(c.nested)
	sort.Strings(c.links)
	sort.Strings(c.linked)
	return c, nil
}

// walk adds the contents of dir to c. real is dir's symlink-free path (they differ below
// a link to a directory); above are the real paths of the directories walked down to it,
// which a link must not lead back to.
func (s *scanner) walk(ctx context.Context, dir, real string, top bool, above []string, c *contents) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	entries, err := os.ReadDir(s.abs(dir))
	if err != nil {
		if top && os.IsNotExist(err) {
			return fmt.Errorf("directory %s does not exist", dir)
		}
		return fmt.Errorf("read %s: %w", dir, pathErr(err))
	}
	if !top {
		for _, e := range entries {
			if !e.IsDir() && tffiles.IsConfig(e.Name()) {
				c.nested = append(c.nested, real) // its own configuration, not part of the parent
				return nil
			}
		}
	}
	above = append(above[:len(above):len(above)], real)
	for _, e := range entries {
		name := e.Name()
		rel := path.Join(dir, name)
		if excluded(name, e.IsDir()) {
			continue
		}
		switch {
		case e.IsDir():
			err = s.walk(ctx, rel, path.Join(real, name), false, above, c)
		case e.Type().IsRegular():
			c.files = append(c.files, rel)
		case e.Type()&os.ModeSymlink != 0:
			err = s.linkEntry(ctx, rel, above, c)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// linkEntry adds what the symbolic link rel among a directory's entries leads to: a
// regular file counts as that file, a directory as a subdirectory of the link's own,
// unless it is one of the directories above (a loop: walking it would never end).
func (s *scanner) linkEntry(ctx context.Context, rel string, above []string, c *contents) error {
	target, mode := s.link(rel, c)
	switch {
	case target == "": // nowhere: nothing to read
	case mode.IsRegular():
		c.files = append(c.files, rel)
	case mode.IsDir() && !excluded(path.Base(rel), true):
		for _, d := range above {
			if d == target || target == "." || strings.HasPrefix(d, target+"/") {
				c.problems = append(c.problems, fmt.Sprintf("%s: symbolic link to %s makes a loop: %s holds the link itself, so its files would be found again and again; link to a directory that does not hold the link", rel, target, target))
				return nil
			}
		}
		if err := s.walk(ctx, rel, target, false, above, c); err != nil {
			return err
		}
		if !slices.Contains(c.nested, target) { // a module of its own: not these contents
			c.linked = append(c.linked, target)
		}
	}
	return nil
}

// link follows the symbolic link rel hop by hop, recording each root-relative target in
// c.links, or a problem when one leaves the repository or the chain never ends. It
// returns where the chain ends (root-relative, symlink-free) and the mode of what is
// there, or "" when it ends nowhere (dangling, outside the repository, a loop).
func (s *scanner) link(rel string, c *contents) (target string, mode fs.FileMode) {
	abs := s.abs(rel)
	for range 40 { // the kernel's own limit on nested links
		dest, err := os.Readlink(abs)
		if err != nil {
			return "", 0
		}
		if !filepath.IsAbs(dest) {
			// Relative to the directory that really holds the link, as the kernel reads it,
			// also when rel is reached through a link to a directory.
			dir := filepath.Dir(abs)
			if real, err := filepath.EvalSymlinks(dir); err == nil {
				dir = real
			}
			dest = filepath.Join(dir, dest)
		}
		if parent, err := filepath.EvalSymlinks(filepath.Dir(dest)); err == nil {
			dest = filepath.Join(parent, filepath.Base(dest))
		}
		r, err := filepath.Rel(s.root, dest)
		target = filepath.ToSlash(r)
		if err != nil || !s.inRepo(target) {
			c.problems = append(c.problems, fmt.Sprintf("%s: symbolic link points outside the repository (%s): tfgate cannot tell when it changes; copy the file into the repository or link to a file inside it", rel, dest))
			return "", 0
		}
		c.links = append(c.links, target)
		fi, err := os.Lstat(dest)
		if err != nil {
			return "", 0 // dangling: no input now, but creating the target changes one
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			return target, fi.Mode()
		}
		abs = dest
	}
	c.problems = append(c.problems, fmt.Sprintf("%s: symbolic links lead to each other and never to a file or directory; fix the link", rel))
	return "", 0
}

// real is dir's symlink-free root-relative path; dir itself when it has none inside the
// repository (missing, or a link out of it, which scanning its parent reports).
func (s *scanner) real(dir string) string {
	r, err := filepath.EvalSymlinks(s.abs(dir))
	if err != nil {
		return dir
	}
	rel, err := filepath.Rel(s.root, r)
	if real := filepath.ToSlash(rel); err == nil && s.inRepo(real) {
		return real
	}
	return dir
}

func (s *scanner) abs(rel string) string {
	return filepath.Join(s.root, filepath.FromSlash(rel))
}
