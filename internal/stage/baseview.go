package stage

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tfgate/tfgate/internal/bundle"
	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/english"
	"github.com/tfgate/tfgate/internal/git"
	"github.com/tfgate/tfgate/internal/project"
)

// The base commit's view of a change. What a review covers must not be decided by the
// change alone: a pull request could drop its own project from the configuration, give it
// a when_modified that matches nothing, or make it a module of another directory, and so
// leave a changed project unplanned and unreviewed. Select therefore also discovers the
// projects as the base commit has them (its configuration, its module graph) and judges
// the changed files with them too.

// BaseView is the base commit's projects.
type BaseView struct {
	Commit   string
	Config   *config.Config // the base commit's own configuration (Default without a file)
	Projects []project.Project
	// Addrs are the literal state addresses (project.StateAddress) of the Projects whose
	// rules differ from the top level's (an approval of their own, or observe mode): the
	// ones a moved project must not escape. Keyed by "name\x00workspace"; "" or missing
	// where there is none.
	Addrs map[string]string

	root  string            // the exported tree's root, while Select runs
	addrs map[string]string // every address read so far, by "name\x00workspace"
}

// addr is base project p's state address, read from the exported tree once.
func (v *BaseView) addr(p project.Project) string {
	key := p.Name + "\x00" + p.Workspace
	if a, ok := v.addrs[key]; ok {
		return a
	}
	a, _ := project.StateAddress(v.root, p)
	v.addrs[key] = a
	return a
}

// Vanished is a project of the base commit that the change touches but that no project of
// the change stands for (same name, directory or state address): removed from projects:,
// or no longer a root module. Nothing plans it; the review must still cover it, under the
// base's rules for it.
type Vanished struct {
	Project project.Project
	File    string // a changed file that touches it
}

// baseView exports the tree of rev into a scratch directory and discovers its projects
// there, under rev's own configuration (configFile, as root-relative as BaseConfig reads
// it). prefix is the root below the git top level ("" or "sub/"). The caller must call
// done once it no longer reads addresses from the tree.
func baseView(ctx context.Context, root, configFile, prefix, rev string) (v *BaseView, done func(), err error) {
	repo := git.Git{Dir: root}
	sha, cfg, _, err := BaseConfig(ctx, root, configFile, rev)
	if err != nil {
		return nil, nil, fmt.Errorf("read the configuration at the base commit %s: %w", rev, err)
	}
	scratch, err := os.MkdirTemp("", "tfgate-base-")
	if err != nil {
		return nil, nil, err
	}
	done = func() { os.RemoveAll(scratch) }
	if err := repo.Export(ctx, sha, scratch); err != nil {
		done()
		return nil, nil, err
	}
	baseRoot := filepath.Join(scratch, filepath.FromSlash(strings.TrimSuffix(prefix, "/")))
	v = &BaseView{Commit: sha, Config: cfg, Addrs: map[string]string{}, root: baseRoot, addrs: map[string]string{}}
	if _, err := os.Stat(baseRoot); err != nil {
		return v, done, nil // the root did not exist at the base: it had no projects
	}
	disc, err := project.DiscoverIn(ctx, scratch, baseRoot, cfg)
	if err != nil {
		done()
		return nil, nil, fmt.Errorf("find the projects at the base commit %s: %w", git.ShortSHA(sha), err)
	}
	v.Projects = disc.Projects
	for _, cp := range cfg.Projects {
		if cp.Approval == nil && cp.Mode != config.ModeObserve {
			continue
		}
		for _, p := range disc.Projects {
			if p.Name == cp.Name && p.Workspace == cp.Workspace {
				if a := v.addr(p); a != "" {
					v.Addrs[p.Name+"\x00"+p.Workspace] = a
				}
			}
		}
	}
	return v, done, nil
}

// counterparts are the indexes of the projects in head that may be base project bp: the
// same name or directory in the same workspace or, when none is, the same literal state
// address (a project moved and renamed). headAddr reads a head project's address (cached:
// a rename is rare, and reading every project's files for each changed base project
// would cost more than the rest of change detection).
func counterparts(head []project.Project, bp project.Project, bpAddr func() string, headAddr func(int) string) []int {
	var out []int
	for i, p := range head {
		if p.Workspace == bp.Workspace && (p.Name == bp.Name || p.Dir == bp.Dir) {
			out = append(out, i)
		}
	}
	if len(out) > 0 {
		return out
	}
	if a := bpAddr(); a != "" { // an address names its workspace
		for i := range head {
			if headAddr(i) == a {
				out = append(out, i)
			}
		}
	}
	return out
}

// withBaseView adds to sel what the base commit's view of the change finds: base projects
// the change touches whose counterparts the change's own view did not select (they are
// planned and reviewed too), the base projects with no counterpart (Vanished), and the
// changed files that belong to no project in either view and that the base's ignore globs
// do not mark inert (Shared). Only committed files can be Shared: the working tree of a CI
// job also holds what terraform and tfgate wrote there (.terraform/, local state, plans),
// which belongs to no project and was never part of the change.
func withBaseView(root string, sel *Selection, files, committed []string) {
	bv := sel.BaseView
	chosen := map[int]string{} // index in sel.All → why
	for i, p := range sel.All {
		for k, q := range sel.Projects {
			if p.Name == q.Name && p.Workspace == q.Workspace {
				chosen[i] = sel.Why[k]
			}
		}
	}
	headAddrs := map[int]string{}
	headAddr := func(i int) string {
		if a, ok := headAddrs[i]; ok {
			return a
		}
		a, _ := project.StateAddress(root, sel.All[i])
		headAddrs[i] = a
		return a
	}
	for _, t := range project.ChangedWhy(bv.Projects, files) {
		cps := counterparts(sel.All, t.Project, func() string { return bv.addr(t.Project) }, headAddr)
		if len(cps) == 0 {
			sel.Vanished = append(sel.Vanished, Vanished{Project: t.Project, File: t.File})
			continue
		}
		for _, k := range cps {
			movedFrom(sel, sel.All[k], t.Project)
			if _, ok := chosen[k]; !ok {
				chosen[k] = t.File
				sel.ByBase = append(sel.ByBase, sel.All[k].Name)
			}
		}
	}
	if len(chosen) > len(sel.Projects) {
		sel.Projects, sel.Why = nil, nil
		for i, p := range sel.All {
			if why, ok := chosen[i]; ok {
				sel.Projects = append(sel.Projects, p)
				sel.Why = append(sel.Why, why)
			}
		}
	}
	headFree := project.Unowned(sel.All, committed)
	baseFree := map[string]bool{}
	for _, f := range project.Unowned(bv.Projects, committed) {
		baseFree[f] = true
	}
	for _, f := range headFree {
		// Files above the root (-C below the git top level: "../" paths) count too: a
		// project may run ../../scripts/hook.sh wherever the root is.
		if baseFree[f] && !bv.Config.Ignores(f) {
			sel.Shared = append(sel.Shared, f)
		}
	}
	sel.Notes = append(sel.Notes, baseViewNotes(sel)...)
}

// baseViewNotes explain, for people, why the review covers more than the planned projects.
func baseViewNotes(sel *Selection) []string {
	var notes []string
	for _, name := range sel.ByBase {
		notes = append(notes, fmt.Sprintf("%s is planned because the base commit's configuration says this change touches it, though the change's own configuration does not: a change cannot take a project out of its own review", name))
	}
	explained := map[string]bool{} // removedNotes and moduleNotes already say why it went
	for _, d := range sel.Removed {
		explained[d] = true
	}
	for _, m := range sel.NowModules {
		explained[m.Dir] = true
	}
	for _, v := range sel.Vanished {
		if explained[v.Project.Dir] {
			continue
		}
		notes = append(notes, fmt.Sprintf("%s (%s) is a project at the base commit and this change touches it (%s), but no project of the change stands for it (removed from projects:, or no longer a root module): nothing plans it, and the change needs the approvals its rules at the base ask for",
			v.Project.Name, v.Project.Dir, v.File))
	}
	if len(sel.Shared) > 0 {
		notes = append(notes, fmt.Sprintf("%s %s to no project, but terraform or tfgate may read %s (a provisioner's script, file(), templatefile(), a var file, the configuration): the change needs the gate's approvals, and plans made before it are stale. Files the base commit's %s lists under ignore: are exempt.",
			english.ClipList(sel.Shared, 5), english.Agree(len(sel.Shared), "belongs", "belong"), english.Agree(len(sel.Shared), "it", "them"), config.FileName))
	}
	return notes
}

// sharedIn lists the files of the whole tree at root that belong to no project of all and
// are not inert under the rules: what every plan's input hash covers besides the project's
// own inputs, so that apply finds a plan stale when one of them changed. Outside a git
// repository (a laptop's preview of a plain directory) there are none.
func sharedIn(ctx context.Context, root string, all []project.Project, rules *config.Config) ([]string, error) {
	if _, err := git.TopLevel(ctx, root); err != nil {
		return nil, nil
	}
	tracked, err := git.Git{Dir: root}.ListFiles(ctx, "HEAD", "")
	if err != nil {
		return nil, err
	}
	prefix, err := git.Git{Dir: root}.Prefix(ctx)
	if err != nil {
		return nil, err
	}
	// The whole repository, files above the root as "../" paths (-C below the top level).
	files := RootRelative(prefix, tracked)
	var out []string
	for _, f := range project.Unowned(all, files) {
		if !rules.Ignores(f) && !terraformWrites(f) {
			out = append(out, f)
		}
	}
	return slices.Clip(out), nil
}

// terraformWrites reports whether f is a file terraform itself writes into a working
// directory (state, its backup and lock, the data directory): never hashed into a plan's
// inputs, since apply changes them. A change that commits one still needs a review (it is
// Shared), and a tracked .terraform/ is refused when its project is planned.
func terraformWrites(f string) bool {
	base := path.Base(f)
	return strings.HasSuffix(base, ".tfstate") || strings.HasSuffix(base, ".tfstate.backup") ||
		base == ".terraform.tfstate.lock.info" || strings.HasPrefix(f, ".terraform/") ||
		strings.Contains(f, "/.terraform/") || strings.HasPrefix(f, "terraform.tfstate.d/") ||
		strings.Contains(f, "/terraform.tfstate.d/")
}

// SharedSums hashes sharedIn's files (those on disk, outside outDir): what every bundle's
// input hash covers besides the project's own inputs. A submodule among them (a tracked
// path that is a directory) is hashed as the commit its gitlink records: a bump changes
// what a provisioner or file() may read from it, so it makes earlier plans stale.
func SharedSums(ctx context.Context, root string, all []project.Project, rules *config.Config, outDir string) (map[string]string, error) {
	files, err := sharedIn(ctx, root, all, rules)
	if err != nil {
		return nil, fmt.Errorf("list the files outside every project: %w", err)
	}
	var present, dirs []string
	dirLinks := map[string]string{}
	for _, f := range Outside(files, root, outDir) {
		abs := filepath.Join(root, filepath.FromSlash(f))
		fi, err := os.Lstat(abs)
		switch {
		case err != nil:
		case fi.IsDir():
			dirs = append(dirs, f)
		case fi.Mode()&os.ModeSymlink != 0 && isDir(abs):
			// A link to a directory is hashed as where it leads: the files there are
			// listed themselves, and the tree terraform runs in holds the link as it is.
			dirLinks[f], _ = os.Readlink(abs)
		default:
			present = append(present, f)
		}
	}
	sums, _, err := bundle.HashInputs(ctx, root, present)
	if err != nil {
		return sums, err
	}
	for f, target := range dirLinks {
		sum := sha256.Sum256([]byte("link " + target))
		sums[f] = hex.EncodeToString(sum[:])
	}
	if len(dirs) == 0 {
		return sums, nil
	}
	return sums, gitlinkSums(ctx, root, dirs, sums)
}

// gitlinkSums adds to sums, for each of dirs (root-relative) that is a submodule at HEAD,
// the sum of the commit it records.
func gitlinkSums(ctx context.Context, root string, dirs []string, sums map[string]string) error {
	repo := git.Git{Dir: root}
	prefix, err := repo.Prefix(ctx)
	if err != nil {
		return err
	}
	links, err := repo.Gitlinks(ctx, "HEAD")
	if err != nil {
		return err
	}
	paths := make([]string, 0, len(links))
	for p := range links {
		paths = append(paths, p)
	}
	commits := map[string]string{}
	for i, f := range RootRelative(prefix, paths) {
		commits[f] = links[paths[i]]
	}
	for _, d := range dirs {
		if c, ok := commits[d]; ok {
			sum := sha256.Sum256([]byte("gitlink " + c))
			sums[d] = hex.EncodeToString(sum[:])
		}
	}
	return nil
}
