package render

import (
	"fmt"
	"path"
	"strings"

	"github.com/tfgate/tfgate/internal/english"
)

// folding is how a scope graph draws changed files: each file in its directory's
// subgraph (depth < 0), or the files of each directory cut to its first depth components
// as one node (depth 0: every file as one node).
type folding struct {
	files  []string
	shared map[string]bool
	depth  int
	keys   int // nodes the files take
	budget int
	notes  []string
	perDir map[string][2]int // files and shared files per drawn directory, once counted
}

// newFolding picks the deepest drawing of files, down to maxDepth (-1: each file), that
// leaves room for others nodes within budget. When even one node per top-level directory
// leaves none, it still keeps them if they take at most a third of the budget (the modules
// and projects fold next), else it draws every file as one node.
func newFolding(files []string, shared map[string]bool, modules, others, budget, maxDepth int) *folding {
	f := &folding{files: files, shared: shared, depth: -1, keys: len(files), budget: budget}
	if maxDepth < 0 && len(files)+modules+others <= budget {
		return f
	}
	deepest := 0
	for _, file := range files {
		deepest = max(deepest, dirDepth(path.Dir(file)))
	}
	if maxDepth >= 0 {
		deepest = min(deepest, maxDepth)
	}
	for d := deepest; d >= 0; d-- {
		f.depth, f.keys = d, f.count(d)
		if f.keys+modules+others <= budget || (d == 1 && f.keys <= budget/3) {
			break
		}
	}
	if f.depth == 0 {
		f.notes = append(f.notes, fmt.Sprintf("%s drawn as one node", english.Plural(len(files), "changed file", "changed files")))
	} else {
		f.notes = append(f.notes, fmt.Sprintf("%s drawn as %s", english.Plural(len(files), "changed file", "changed files"), english.Plural(f.keys, "directory", "directories")))
	}
	return f
}

// over is by how many nodes the files and n other nodes exceed the budget.
func (f *folding) over(n int) int { return f.keys + n - f.budget }

func (f *folding) count(depth int) int {
	seen := map[string]bool{}
	for _, file := range f.files {
		seen[dirPrefix(path.Dir(file), depth)] = true
	}
	return len(seen)
}

// node is file's node in g: its own, or its directory's.
func (f *folding) node(g *scopeGraph, file string) int {
	if f.depth < 0 {
		class := pick(f.shared[file], kindShared, kindFile)
		label := path.Base(file)
		if f.shared[file] {
			label += " · shared"
		}
		return g.node("f\x00"+file, gNode{label: label, class: class, kind: class, group: path.Dir(file)})
	}
	dir := dirPrefix(path.Dir(file), f.depth)
	if f.perDir == nil {
		f.perDir = map[string][2]int{}
		for _, other := range f.files {
			c := f.perDir[dirPrefix(path.Dir(other), f.depth)]
			c[0]++
			if f.shared[other] {
				c[1]++
			}
			f.perDir[dirPrefix(path.Dir(other), f.depth)] = c
		}
	}
	n, shared := f.perDir[dir][0], f.perDir[dir][1]
	label := english.Plural(n, "changed file", "changed files")
	if f.depth > 0 {
		label = pick(dir == ".", "(root)", dir+"/") + " · " + label
	}
	if shared > 0 {
		label += fmt.Sprintf(", %d shared", shared)
	}
	class := pick(shared == n, kindShared, kindFile)
	return g.node("d\x00"+dir, gNode{label: label, class: class, kind: class})
}

func dirDepth(dir string) int {
	if dir == "." {
		return 1
	}
	return strings.Count(dir, "/") + 1
}

// dirPrefix is dir cut to its first depth components ("" for depth 0).
func dirPrefix(dir string, depth int) string {
	if depth == 0 {
		return ""
	}
	parts := strings.Split(dir, "/")
	return strings.Join(parts[:min(depth, len(parts))], "/")
}
