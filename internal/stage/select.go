// Package stage is what every command's runner shares: which projects a command works on
// (Select, with the base commit's view of a change: BaseView), the one worker pool
// (ForEach: bounded, one directory at a time, results in project order, depends_on order
// for apply), the stages a project goes through (ProjectRun, RunStages: init, workspace,
// plan, show, policy verdict, bundle; plan's own sequence is Plan), where policies come from
// (PolicySource, LoadPolicies), how terraform is found (ResolveTerraform) and the progress a
// stage reports. It decides nothing about a pull request, publishes nothing and renders no
// text: the runners (internal/pipeline) do, with internal/gate, internal/notify and
// internal/render.
package stage

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/git"
	"github.com/tfgate/tfgate/internal/project"
)

// SelectOptions say which projects a command works on.
type SelectOptions struct {
	Root   string
	Config *config.Config
	Names  []string // explicit project names or dirs
	All    bool     // every project
	// Changed: only projects touched since Base (plan's default without names/--all).
	// With Names, those of the named ones, each of which must be touched: the selection
	// is the changed run's (base, changed files, notes) cut down to them — a matrix job's.
	Changed bool
	Base    string // base ref; "" = the remote default branch
	// ConfigFile is the configuration's path (as BaseConfig takes it): change detection
	// reads it again at the base commit, whose view of the projects counts too.
	ConfigFile string
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
	// NowModules are the dirs that were projects at the merge base and that the change
	// turned into local modules of other directories: they are no longer planned.
	NowModules []ModuleNote
	// BaseView is the base commit's projects (change detection only).
	BaseView *BaseView
	// ByBase are the names of Projects selected only because the base commit's view of
	// the change touches them (the change's own configuration or module graph does not).
	ByBase []string
	// Vanished are base projects the change touches that no project of the change stands
	// for: the review covers them, nothing plans them.
	Vanished []Vanished
	// MovedFrom names, for each project the change moved (a counterpart of a base project
	// in another directory: the same name, or the same state address), the base project's
	// name, by "name\x00workspace": the policies judge it as the base knows it
	// (Policies.WithMoved).
	MovedFrom map[string]string
	// Shared are the changed files that belong to no project in either view and that the
	// base's ignore globs do not mark inert: terraform may read them, so the change needs a
	// review.
	Shared []string
	// Notes say, for people, what the change does that planning will not show: the
	// removedNotes of Removed, a note for each of NowModules, the provider binaries a change
	// adds under terraform.d/plugins, then what the base view adds.
	Notes []string
}

// ModuleNote is a former project that the change started using as a local module.
type ModuleNote struct {
	Dir    string
	UsedBy []string // the files (root-relative) whose module blocks now call it
}

// Select discovers the repository's projects and picks the ones the options ask for.
func Select(ctx context.Context, opts SelectOptions) (Selection, error) {
	top, err := git.TopLevel(ctx, opts.Root)
	if err != nil {
		// Without git (a plain directory) names and --all still work; the root is the
		// repository.
		if opts.Changed && len(opts.Names) == 0 && !opts.All {
			return Selection{}, err
		}
		top = opts.Root
	}
	disc, err := project.DiscoverIn(ctx, top, opts.Root, opts.Config)
	if err != nil {
		return Selection{}, err
	}
	all := disc.Projects
	sel := Selection{All: all}
	var named []project.Project
	switch {
	case len(opts.Names) > 0 && opts.Changed:
		if named, err = project.Select(all, opts.Names); err != nil {
			return sel, err
		}
	case len(opts.Names) > 0:
		sel.Projects, err = project.Select(all, opts.Names)
		return sel, err
	case opts.All || !opts.Changed:
		sel.Projects = all
		return sel, nil
	}

	repo := git.Git{Dir: opts.Root}
	base := opts.Base
	if base == "" {
		if base, err = repo.DefaultBase(ctx); err != nil {
			return sel, err
		}
	}
	changes, err := repo.ChangedFiles(ctx, base)
	if err != nil {
		return sel, err
	}
	prefix, err := RootPrefix(top, opts.Root)
	if err != nil {
		return sel, err
	}
	files := RootRelative(prefix, changes.Files)
	sel.Base, sel.MergeBase, sel.Files = changes.Base, changes.MergeBase, files
	var inRoot []string // removed code outside root is no project of this root
	for _, f := range deletedFiles(opts.Root, files) {
		if !strings.HasPrefix(f, "../") {
			inRoot = append(inRoot, f)
		}
	}
	sel.Removed = project.RemovedDirs(inRoot, func(dir string) bool { return project.HasTerraform(opts.Root, dir) })
	for _, t := range project.ChangedWhy(all, files) {
		sel.Projects = append(sel.Projects, t.Project)
		sel.Why = append(sel.Why, t.File)
	}
	if sel.NowModules, err = nowModules(ctx, repo, prefix, changes.MergeBase, files, disc.UsedAsModule); err != nil {
		return sel, err
	}
	sel.Notes = append(removedNotes(sel.Removed), moduleNotes(sel.NowModules)...)
	sel.Notes = append(sel.Notes, project.ProviderBinaryNotes(all, files, deletedFiles(opts.Root, files))...)
	bv, done, err := baseView(ctx, opts.Root, opts.ConfigFile, prefix, changes.Base)
	if err != nil {
		return sel, err
	}
	sel.BaseView = bv
	withBaseView(opts.Root, &sel, files, RootRelative(prefix, changes.Committed))
	done()
	if named != nil {
		return onlyNamed(sel, named)
	}
	return sel, nil
}

// onlyNamed cuts a change detection's selection down to the named projects, refusing one
// the change does not touch: a matrix job plans one of the changed projects, and planning
// another would put a plan in the review that no change asked for.
func onlyNamed(sel Selection, named []project.Project) (Selection, error) {
	key := func(p project.Project) string { return p.Name + "\x00" + p.Workspace }
	want := map[string]bool{}
	for _, p := range named {
		want[key(p)] = true
	}
	var projects []project.Project
	var why []string
	for i, p := range sel.Projects {
		if want[key(p)] {
			projects = append(projects, p)
			why = append(why, sel.Why[i])
			delete(want, key(p))
		}
	}
	var untouched []string
	for _, p := range named {
		if want[key(p)] {
			untouched = append(untouched, p.Name)
		}
	}
	if len(untouched) > 0 {
		return sel, Optionf("{Changed}: the change since %s does not touch %s: `tfgate projects --changed` lists the projects it touches", sel.Base, strings.Join(untouched, ", "))
	}
	sel.Projects, sel.Why = projects, why
	return sel, nil
}

// RootPrefix is root relative to the git top level: "" when they are the same, else
// "a/b/".
func RootPrefix(top, root string) (string, error) {
	topAbs, err := filepath.EvalSymlinks(top)
	if err != nil {
		return "", err
	}
	rootAbs, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", err
	}
	prefix, err := filepath.Rel(topAbs, rootAbs)
	if err != nil || prefix == ".." || strings.HasPrefix(prefix, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("root %s is outside git top-level %s", root, top)
	}
	if prefix == "." {
		return "", nil
	}
	return filepath.ToSlash(prefix) + "/", nil
}

// relativeToRoot turns paths relative to the git top level into paths relative to root
// and drops files outside root (what policies, which live under root, care about).
func relativeToRoot(ctx context.Context, root string, files []string) ([]string, error) {
	top, err := git.TopLevel(ctx, root)
	if err != nil {
		return nil, err
	}
	prefix, err := RootPrefix(top, root)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, f := range RootRelative(prefix, files) {
		if !strings.HasPrefix(f, "../") {
			out = append(out, f)
		}
	}
	return out, nil
}

// RootRelative turns paths relative to the git top level into paths relative to root
// (they differ when -C points below the top level; prefix is RootPrefix's). Files
// elsewhere in the repository become "../" paths: modules there have users under root.
func RootRelative(prefix string, files []string) []string {
	if prefix == "" {
		return files
	}
	out := make([]string, 0, len(files))
	up := strings.Repeat("../", strings.Count(prefix, "/"))
	for _, f := range files {
		if rest, ok := strings.CutPrefix(f, prefix); ok {
			out = append(out, rest)
			continue
		}
		// Climb to the top level, then down: path.Clean cancels the common part.
		out = append(out, path.Clean(up+f))
	}
	return out
}

// nowModules finds the directories that autodetection leaves out as local modules but
// that were projects at the merge base mb: every file calling them is changed, none of
// those calls existed at mb, and the directory held Terraform files there. Such a
// directory may still hold state that no project plans any more.
func nowModules(ctx context.Context, repo git.Git, prefix, mb string, files []string, used map[string][]string) ([]ModuleNote, error) {
	changed := map[string]bool{}
	for _, f := range files {
		changed[f] = true
	}
	var notes []ModuleNote
	for _, dir := range sortedDirs(used) {
		callers := used[dir]
		if !allIn(callers, changed) {
			continue // an unchanged file calls it: it was a module before the change too
		}
		before, err := usedAt(ctx, repo, prefix, mb, dir, callers)
		if err != nil {
			return nil, err
		}
		if before {
			continue
		}
		wasProject, err := heldTerraform(ctx, repo, prefix+dir, mb)
		if err != nil {
			return nil, err
		}
		if wasProject {
			notes = append(notes, ModuleNote{Dir: dir, UsedBy: callers})
		}
	}
	return notes, nil
}

// usedAt reports whether one of callers (root-relative files) called dir at rev.
func usedAt(ctx context.Context, repo git.Git, prefix, rev, dir string, callers []string) (bool, error) {
	for _, c := range callers {
		src, err := repo.ReadFile(ctx, rev, path.Clean(prefix+c))
		if errors.Is(err, fs.ErrNotExist) {
			continue // a new file
		}
		if err != nil {
			return false, err
		}
		if slices.Contains(project.LocalModuleDirs(src, c), dir) {
			return true, nil
		}
	}
	return false, nil
}

// heldTerraform reports whether the top-relative dir directly held Terraform files at rev.
func heldTerraform(ctx context.Context, repo git.Git, dir, rev string) (bool, error) {
	files, err := repo.ListFiles(ctx, rev, dir)
	if err != nil {
		return false, err
	}
	return project.HoldsTerraform(files, dir), nil
}

func allIn(files []string, set map[string]bool) bool {
	for _, f := range files {
		if !set[f] {
			return false
		}
	}
	return len(files) > 0
}

func sortedDirs(m map[string][]string) []string {
	dirs := make([]string, 0, len(m))
	for d := range m {
		dirs = append(dirs, d)
	}
	slices.Sort(dirs)
	return dirs
}

// moduleNotes explain that a former project is now only a module.
func moduleNotes(mods []ModuleNote) []string {
	var notes []string
	for _, m := range mods {
		users := make([]string, 0, len(m.UsedBy))
		for _, f := range m.UsedBy {
			users = append(users, path.Dir(f))
		}
		users = slices.Compact(users)
		notes = append(notes, fmt.Sprintf("%s is now used as a module by %s; it is no longer planned as a project, but may still hold state: destroy what it manages or move its state deliberately",
			m.Dir, strings.Join(users, ", ")))
	}
	return notes
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

// removedNotes explain what removing Terraform code does not do.
func removedNotes(dirs []string) []string {
	var notes []string
	for _, d := range dirs {
		notes = append(notes, fmt.Sprintf("the Terraform code in %s was removed: removing code does not destroy what it manages; destroy it first (a reviewed destroy plan) or remove it from state deliberately", d))
	}
	return notes
}
