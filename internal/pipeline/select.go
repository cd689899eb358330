// Package pipeline orchestrates tfgate's jobs (plan, and later apply and drift) across
// projects: which to run, a bounded worker pool, results gathered in project order.
package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/tfgate/tfgate/internal/ci"
	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/project"
)

// SelectOptions say which projects a command works on.
type SelectOptions struct {
	Root    string
	Config  *config.Config
	Names   []string // explicit project names or dirs
	All     bool     // every project
	Changed bool     // only projects touched since Base (plan's default without names/--all)
	Base    string   // base ref; "" = the remote default branch
}

// Selection is the outcome: the projects and, for change detection, what it compared.
type Selection struct {
	All       []project.Project // every project in the repository
	Projects  []project.Project // the selected ones, in project order
	Base      string            // the ref compared against ("" when not detecting changes)
	MergeBase string
	Files     []string // changed files, root-relative
	Why       []string // for change detection: the file that touched each of Projects
	Removed   []string // dirs whose Terraform code the change removed
}

// Select discovers the repository's projects and picks the ones the options ask for.
func Select(ctx context.Context, opts SelectOptions) (Selection, error) {
	all, err := project.Discover(ctx, opts.Root, opts.Config)
	if err != nil {
		return Selection{}, err
	}
	sel := Selection{All: all}
	switch {
	case len(opts.Names) > 0:
		sel.Projects, err = project.Select(all, opts.Names)
		return sel, err
	case opts.All || !opts.Changed:
		sel.Projects = all
		return sel, nil
	}

	git := ci.Git{Dir: opts.Root}
	base := opts.Base
	if base == "" {
		if base, err = git.DefaultBase(ctx); err != nil {
			return sel, err
		}
	}
	changes, err := git.ChangedFiles(ctx, base)
	if err != nil {
		return sel, err
	}
	files, err := relativeToRoot(ctx, opts.Root, changes.Files)
	if err != nil {
		return sel, err
	}
	sel.Base, sel.MergeBase, sel.Files = changes.Base, changes.MergeBase, files
	sel.Removed = project.RemovedDirs(deletedFiles(opts.Root, files), func(dir string) bool { return project.HasTerraform(opts.Root, dir) })
	for _, t := range project.ChangedWhy(all, files) {
		sel.Projects = append(sel.Projects, t.Project)
		sel.Why = append(sel.Why, t.File)
	}
	return sel, nil
}

// relativeToRoot turns paths relative to the git top-level into paths relative to root
// (they differ when -C points below the top-level) and drops files outside root.
func relativeToRoot(ctx context.Context, root string, files []string) ([]string, error) {
	top, err := ci.TopLevel(ctx, root)
	if err != nil {
		return nil, err
	}
	rootAbs, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, err
	}
	topAbs, err := filepath.EvalSymlinks(top)
	if err != nil {
		return nil, err
	}
	prefix, err := filepath.Rel(topAbs, rootAbs)
	if err != nil {
		return nil, fmt.Errorf("root %s is outside git top-level %s", root, top)
	}
	if prefix == "." {
		return files, nil
	}
	prefix = filepath.ToSlash(prefix) + "/"
	var out []string
	for _, f := range files {
		if rest, ok := strings.CutPrefix(f, prefix); ok {
			out = append(out, rest)
		}
	}
	return out, nil
}

// deletedFiles are the changed files no longer in the working tree.
func deletedFiles(root string, files []string) []string {
	var out []string
	for _, f := range files {
		if _, err := os.Lstat(filepath.Join(root, filepath.FromSlash(f))); errors.Is(err, fs.ErrNotExist) {
			out = append(out, f)
		}
	}
	return out
}

// RemovedNotes explain what removing Terraform code does not do.
func RemovedNotes(dirs []string) []string {
	var notes []string
	for _, d := range dirs {
		notes = append(notes, fmt.Sprintf("the Terraform code in %s was removed: removing code does not destroy what it manages; destroy it first (a reviewed destroy plan) or remove it from state deliberately", d))
	}
	return notes
}
