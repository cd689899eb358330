package project

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/tfgate/tfgate/internal/english"
)

// The files terraform itself reads from the directory it runs in, beside the
// configuration (terraform's and OpenTofu's provider_source.go, cliconfig):
//
//   - .terraform/, its data directory: the backend cache (terraform.tfstate), which
//     overrides the backend block whenever its hash matches; the installed modules
//     (modules/modules.json); the selected workspace (environment). tfgate runs terraform
//     with a data directory of its own (TF_DATA_DIR, see pipeline), and refuses a project
//     whose .terraform, or one in a directory above it, is committed (CommittedDataDirs).
//   - terraform.d/plugins/, its implied local provider mirror, used whenever the CLI
//     configuration has no provider_installation block: a provider binary there runs
//     with the credentials of whatever runs terraform, apply's included. It is part of the
//     project's contents (contents.go); a change to it touches every project in that
//     directory whatever their when_modified says, and is named as a provider binary
//     (ProviderBinaryNotes). A link to a directory there is refused (LinkedPlugins): what
//     it points at would be no project's input.
//
// The CLI configuration is never read from the working directory: it is the file
// TF_CLI_CONFIG_FILE names, else ~/.terraformrc and ~/.terraform.d/*.tfrc.

// DataDirName is terraform's data directory in the working directory.
const DataDirName = ".terraform"

// pluginsDir is terraform's implied local provider mirror, relative to the working
// directory.
const pluginsDir = "terraform.d/plugins"

// CommittedDataDir is a project whose working directory, or a directory above it up to
// the root, holds a terraform data directory that git tracks.
type CommittedDataDir struct {
	Project Project
	Dirs    []string // the .terraform directories (root-relative), nearest first
	Files   []string // the tracked files in them (or a tracked .terraform file or link itself)
}

// Error says what is committed, why it is refused and what to do.
func (c CommittedDataDir) Error() string {
	verb, it := "is", "it is"
	if len(c.Dirs) > 1 {
		verb, it = "are", "each is"
	}
	return fmt.Sprintf("%s %s committed (%s): %s terraform's data directory — backend settings, installed modules, the selected workspace — "+
		"which must come from `terraform init`, never from the repository, where it could point %s's state at another backend without review; "+
		"remove it from git, keeping your local copy: git rm -r --cached %s, and add %s/ to .gitignore",
		strings.Join(c.Dirs, ", "), verb, english.ClipList(c.Files, 5), it, c.Project.Name, strings.Join(c.Dirs, " "), DataDirName)
}

// CommittedDataDirs returns, in project order, the projects with a committed data
// directory: tracked lists the tracked files (root-relative, sorted) named .terraform or
// under a directory named so (git.Git.TrackedDirFiles).
func CommittedDataDirs(projects []Project, tracked []string) []CommittedDataDir {
	if len(tracked) == 0 {
		return nil
	}
	var out []CommittedDataDir
	for _, p := range projects {
		c := CommittedDataDir{Project: p}
		for _, dd := range dataDirs(p.Dir) {
			found := false
			for _, f := range tracked {
				if f == dd || strings.HasPrefix(f, dd+"/") {
					c.Files = append(c.Files, f)
					found = true
				}
			}
			if found {
				c.Dirs = append(c.Dirs, dd)
			}
		}
		if len(c.Files) > 0 {
			out = append(out, c)
		}
	}
	return out
}

// DataDirsOnDisk reports whether a .terraform exists (as anything) in dir or a directory
// above it up to root: only then can one be committed and read by terraform.
func DataDirsOnDisk(root, dir string) bool {
	for _, dd := range dataDirs(dir) {
		if _, err := os.Lstat(filepath.Join(root, filepath.FromSlash(dd))); err == nil {
			return true
		}
	}
	return false
}

// dataDirs are the .terraform directories of dir and of every directory above it up to
// the root (root-relative), nearest first. A dir outside the root ("../") has only its own.
func dataDirs(dir string) []string {
	dir = path.Clean(dir)
	dirs := []string{path.Join(dir, DataDirName)}
	if strings.HasPrefix(dir, "../") || dir == ".." {
		return dirs
	}
	for dir != "." {
		dir = path.Dir(dir)
		dirs = append(dirs, path.Join(dir, DataDirName))
	}
	return dirs
}

// readByTerraform returns a changed file that terraform reads from p's working directory
// beside the configuration: one in terraform.d/plugins of p.Dir (or terraform.d or
// terraform.d/plugins itself, a link), or in a .terraform of it or of a directory above it
// (refused: planning the project says so). "" when none.
func (idx fileIndex) readByTerraform(p Project) string {
	td := path.Join(p.Dir, "terraform.d")
	for _, f := range []string{td, path.Join(td, "plugins")} {
		if idx.has(f) {
			return f
		}
	}
	if f := idx.firstWithPrefix(path.Join(p.Dir, pluginsDir) + "/"); f != "" {
		return f
	}
	for _, dd := range dataDirs(p.Dir) {
		if idx.has(dd) {
			return dd
		}
		if f := idx.firstWithPrefix(dd + "/"); f != "" {
			return f
		}
	}
	return ""
}

// ProviderBinaryNotes name, for people, the provider binaries a change adds or edits under
// a project's terraform.d/plugins: terraform runs them with apply's credentials, and the
// plan shows nothing of them. One note per directory, naming every project (workspace)
// that runs there: each needs its approvals for the change. changed are the changed files
// (root-relative), deleted those of them the change removes.
func ProviderBinaryNotes(projects []Project, changed, deleted []string) []string {
	gone := map[string]bool{}
	for _, f := range deleted {
		gone[f] = true
	}
	idx := newFileIndex(changed)
	var notes []string
	seen := map[string]bool{}
	for _, p := range projects {
		if seen[p.Dir] {
			continue
		}
		seen[p.Dir] = true
		var files []string
		for _, f := range idx.withPrefix(path.Join(p.Dir, pluginsDir) + "/") {
			if !gone[f] {
				files = append(files, f)
			}
		}
		if len(files) == 0 {
			continue
		}
		var names []string
		for _, q := range projects {
			if q.Dir == p.Dir {
				names = append(names, q.Name)
			}
		}
		notes = append(notes, providerNote(p.Dir, names, files))
	}
	return notes
}

func providerNote(dir string, projects, files []string) string {
	where := dir + "'s directory"
	if dir == "." {
		where = "the root directory"
	}
	what, it := "provider binary", "it runs"
	if len(files) > 1 {
		what, it = "provider binaries", "they run"
	}
	who := "project " + projects[0] + " needs its"
	if len(projects) > 1 {
		who = "projects " + strings.Join(projects, ", ") + " need their"
	}
	return fmt.Sprintf("%s terraform loads from %s (%s, its implied local mirror); %s with apply's credentials: %s — review as code: %s approvals for this change",
		what, where, path.Join(dir, pluginsDir), it, english.ClipList(files, 5), who)
}

// LinkedPlugins returns why p's terraform.d/plugins cannot be reviewed, or "": a symbolic
// link to a directory there (terraform.d, terraform.d/plugins, or one inside) makes
// terraform load providers from wherever it points, and tfgate does not follow links to
// directories (contents.go), so a change there would touch no project. root is the
// repository root the project's Dir is relative to.
func LinkedPlugins(root string, p Project) string {
	dir := filepath.Join(root, filepath.FromSlash(p.Dir))
	td := filepath.Join(dir, "terraform.d")
	var found string
	check := func(path string) bool {
		fi, err := os.Lstat(path)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			return false
		}
		if st, err := os.Stat(path); err == nil && !st.IsDir() {
			return false // a link to a file counts as that file
		}
		rel, _ := filepath.Rel(root, path)
		found = filepath.ToSlash(rel)
		return true
	}
	if check(td) || check(filepath.Join(td, "plugins")) {
		return linkedMessage(found)
	}
	_ = filepath.WalkDir(filepath.Join(td, "plugins"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || found != "" {
			return filepath.SkipAll
		}
		if d.Type()&fs.ModeSymlink != 0 && check(path) {
			return filepath.SkipAll
		}
		return nil
	})
	if found != "" {
		return linkedMessage(found)
	}
	return ""
}

func linkedMessage(link string) string {
	return fmt.Sprintf("%s is a symbolic link to a directory in terraform's implied provider mirror: terraform would run the provider binaries wherever it points, "+
		"and a change there touches no project, so nobody would review it; put the providers themselves in %s", link, pluginsDir)
}
