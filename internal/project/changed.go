package project

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/tfgate/tfgate/internal/tffiles"
)

// Touched is a changed project and a changed file that touches it.
type Touched struct {
	Project Project
	File    string
}

// ChangedWhy returns the projects, in input order, that the changed files touch, each with
// a changed file that touches it (the answer to "why is this project planned?"). files are
// root-relative slash paths ("../" allowed for files outside root but inside the git
// repository) and should include deleted files and both sides of renames. A file touches a
// project when it matches one of the project's WhenModified globs (taken relative to its
// Dir), is one of its VarFiles, belongs to the contents (contents.go: templates and
// scripts too, not nested modules nor hidden directories) of one of its local Modules, of
// a directory a link among them leads to (Linked) or, with OwnInputs, of its Dir (the
// directory's own path too: a submodule's gitlink), or is where one of its Links leads. Those are the files
// InputFiles hashes: a project is selected exactly when its input hash changes. Besides,
// a file terraform reads from the working directory by itself (terraformfiles.go: a
// provider binary in Dir's terraform.d/plugins, a committed .terraform) touches the
// project whatever globs WhenModified lists (an empty WhenModified still keeps it out).
//
// A project with Problems may use local modules its Modules do not list (the file that
// would name them does not parse, or names a module that does not exist yet), so it is
// also touched by any changed Terraform (*.tf, *.tf.json, *.tofu, *.tofu.json) file anywhere in the repository: a change
// to a module it might use plans it, and the plan then fails with the problem instead of
// the change going unchecked. A change to a non-Terraform file (a template) of a module
// it uses only through a broken file is still missed. An empty WhenModified keeps such a
// project out too.
func ChangedWhy(projects []Project, files []string) []Touched {
	idx := newFileIndex(files)
	firstTerraform := ""
	if i := slices.IndexFunc(idx, func(f string) bool { return tffiles.IsConfig(path.Base(f)) }); i >= 0 {
		firstTerraform = idx[i]
	}
	var touched []Touched
	for _, p := range projects {
		if f := idx.touchedBy(p, firstTerraform); f != "" {
			touched = append(touched, Touched{Project: p, File: f})
		}
	}
	return touched
}

// fileIndex holds the changed files sorted, so every glob only looks at the files under
// its literal directory prefix: matching stays fast with thousands of files and projects.
type fileIndex []string

func newFileIndex(files []string) fileIndex {
	idx := make([]string, 0, len(files))
	for _, f := range files {
		if f = path.Clean(strings.TrimPrefix(f, "./")); f != "." && f != "" {
			idx = append(idx, f)
		}
	}
	sort.Strings(idx)
	return idx
}

// withPrefix returns the files starting with prefix.
func (idx fileIndex) withPrefix(prefix string) []string {
	lo := sort.SearchStrings(idx, prefix)
	hi := lo
	for hi < len(idx) && strings.HasPrefix(idx[hi], prefix) {
		hi++
	}
	return idx[lo:hi]
}

// touchedBy returns a changed file that touches p, or "" when none does; firstTerraform
// is the first changed Terraform (*.tf, *.tf.json, *.tofu, *.tofu.json) file ("" when there is none).
func (idx fileIndex) touchedBy(p Project, firstTerraform string) string {
	if len(p.WhenModified) == 0 || len(idx) == 0 {
		return ""
	}
	if len(p.Problems) > 0 && firstTerraform != "" {
		return firstTerraform
	}
	if f := idx.readByTerraform(p); f != "" { // whatever WhenModified says (terraformfiles.go)
		return f
	}
	first := ""
	idx.eachInput(p, func(f string) bool { first = f; return false })
	return first
}

// eachInput calls fn with each of the files that are p's inputs (WhenModified, VarFiles,
// the contents of its modules, of its Linked directories and, with OwnInputs, of its Dir,
// its Links), a file possibly more than once, until fn returns false. Linked count
// whatever WhenModified says, as modules do: a link to another directory reaches outside
// the project as a module call does.
func (idx fileIndex) eachInput(p Project, fn func(string) bool) {
	for _, glob := range p.WhenModified {
		pattern := joinGlob(p.Dir, glob)
		for _, f := range idx.withPrefix(literalPrefix(pattern)) {
			if ok, _ := doublestar.Match(pattern, f); ok && !fn(f) {
				return
			}
		}
	}
	for _, vf := range p.VarFiles {
		if f := path.Join(p.Dir, vf); idx.has(f) && !fn(f) {
			return
		}
	}
	dirs := append(slices.Clone(p.Modules), p.Linked...)
	if p.OwnInputs {
		dirs = append([]string{p.Dir}, dirs...)
	}
	for _, m := range dirs {
		// The directory itself changed as a file: a submodule's gitlink (a bump changes
		// every file terraform reads from it), or a file or link replacing the directory.
		if m != "." && idx.has(m) && !fn(m) {
			return
		}
		candidates := idx
		if m != "." {
			candidates = idx.withPrefix(m + "/")
		}
		for _, f := range candidates {
			if inContents(m, p.Nested, f) && !fn(f) {
				return
			}
		}
	}
	for _, l := range p.Links {
		if idx.has(l) && !fn(l) {
			return
		}
	}
}

func (idx fileIndex) has(f string) bool {
	i := sort.SearchStrings(idx, f)
	return i < len(idx) && idx[i] == f
}

func (idx fileIndex) firstWithPrefix(prefix string) string {
	i := sort.SearchStrings(idx, prefix)
	if i < len(idx) && strings.HasPrefix(idx[i], prefix) {
		return idx[i]
	}
	return ""
}

var globEscaper = strings.NewReplacer(`\`, `\\`, "*", `\*`, "?", `\?`, "[", `\[`, "]", `\]`, "{", `\{`, "}", `\}`)

// joinGlob makes a project-relative glob root-relative. The directory is escaped so that a
// directory named "[prod]" is not read as a character class, and "../" in the glob cancels
// directory components, so "../../modules/network/**" works.
func joinGlob(dir, glob string) string {
	if dir == "." {
		return path.Clean(glob)
	}
	return path.Clean(globEscaper.Replace(dir) + "/" + glob)
}

// literalPrefix returns the part of pattern up to the last "/" before its first special
// character; every path the pattern matches starts with it.
func literalPrefix(pattern string) string {
	i := strings.IndexAny(pattern, `*?[{\`)
	if i < 0 {
		return pattern
	}
	return pattern[:strings.LastIndexByte(pattern[:i], '/')+1]
}

// Select resolves names (project names or directories) to projects, in project order and
// each once; a directory selects every project (workspace) in it.
func Select(projects []Project, names []string) ([]Project, error) {
	want := map[int]bool{}
	var unknown []string
	for _, name := range names {
		dir := path.Clean(strings.TrimPrefix(strings.TrimSuffix(name, "/"), "./"))
		found := false
		for i, p := range projects {
			if p.Name == name || p.Name == dir || p.Dir == dir {
				want[i] = true
				found = true
			}
		}
		if !found {
			unknown = append(unknown, fmt.Sprintf("%q", name))
		}
	}
	if len(unknown) > 0 {
		noun := "project"
		if len(unknown) > 1 {
			noun = "projects"
		}
		return nil, fmt.Errorf("unknown %s %s: %s", noun, strings.Join(unknown, ", "), available(projects))
	}
	selected := make([]Project, 0, len(want))
	for i, p := range projects {
		if want[i] {
			selected = append(selected, p)
		}
	}
	return selected, nil
}

// available lists project names for an error message, shortened for big monorepos.
func available(projects []Project) string {
	if len(projects) == 0 {
		return "the repository has no projects (no directory holds *.tf files)"
	}
	const max = 20
	names := make([]string, 0, max)
	for i, p := range projects {
		if i == max {
			break
		}
		names = append(names, p.Name)
	}
	s := "available: " + strings.Join(names, ", ")
	if len(projects) > max {
		s += fmt.Sprintf(", … and %d more (tfgate projects lists them all)", len(projects)-max)
	}
	return s
}
