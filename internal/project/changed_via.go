package project

import (
	"path"
	"slices"

	"github.com/tfgate/tfgate/internal/tffiles"
)

// Via is a changed file that touches a project and, when it does so as part of the
// contents of one of the project's local modules (or of a directory a link among them
// leads to), that directory; Module is "" when the file touches the project directly (its
// own directory, a var file, a when_modified glob, a link, a file terraform reads by
// itself, or the eager rule of a project with Problems).
type Via struct {
	File   string
	Module string
}

// ChangedVia returns, for each of projects, every changed file that touches it by
// ChangedWhy's rule, sorted by file, each once: what a graph of "why is this project
// planned?" draws. It is ChangedWhy's rule spelled out, not another: a project has an
// entry exactly when ChangedWhy selects it (the file ChangedWhy names is among them). A file
// in a module's contents is drawn through the module even when a glob reaches it too.
func ChangedVia(projects []Project, files []string) [][]Via {
	idx := newFileIndex(files)
	firstTerraform := ""
	if i := slices.IndexFunc(idx, func(f string) bool { return tffiles.IsConfig(path.Base(f)) }); i >= 0 {
		firstTerraform = idx[i]
	}
	out := make([][]Via, len(projects))
	for i, p := range projects {
		why := idx.touchedBy(p, firstTerraform)
		if why == "" {
			continue
		}
		byFile := map[string]string{}
		for _, m := range append(slices.Clone(p.Modules), p.Linked...) {
			q := Project{Dir: p.Dir, Modules: []string{m}, Nested: p.Nested}
			idx.eachInput(q, func(f string) bool {
				if _, ok := byFile[f]; !ok {
					byFile[f] = m
				}
				return true
			})
		}
		direct := p
		direct.Modules, direct.Linked = nil, nil
		idx.eachInput(direct, func(f string) bool {
			if _, ok := byFile[f]; !ok {
				byFile[f] = ""
			}
			return true
		})
		if _, ok := byFile[why]; !ok {
			byFile[why] = ""
		}
		vias := make([]Via, 0, len(byFile))
		for f, m := range byFile {
			vias = append(vias, Via{File: f, Module: m})
		}
		slices.SortFunc(vias, func(a, b Via) int {
			if a.File < b.File {
				return -1
			}
			if a.File > b.File {
				return 1
			}
			return 0
		})
		out[i] = vias
	}
	return out
}
