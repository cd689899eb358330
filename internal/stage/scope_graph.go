package stage

import (
	"path"
	"slices"
	"strings"

	"github.com/tfgate/tfgate/internal/project"
	"github.com/tfgate/tfgate/internal/report"
)

// Scope is the selection's account of why it chose its projects, for the graph in the
// comment and `tfgate projects --changed --format mermaid`: every file that touches each
// selected project (project.ChangedVia, ChangedWhy's own rule) and the module it touches it
// through, the shared files, and the directories and projects the change took out of
// planning. A project selected only by the base commit's view of the change is drawn from
// the file that selected it. nil when the selection did not detect changes.
func (sel Selection) Scope() *report.Scope {
	if sel.Base == "" {
		return nil
	}
	s := &report.Scope{Files: slices.Sorted(slices.Values(sel.Files)), Shared: sel.Shared}
	s.Files = slices.Compact(s.Files)
	for i, vias := range project.ChangedVia(sel.Projects, sel.Files) {
		p := sel.Projects[i]
		if len(vias) == 0 && i < len(sel.Why) {
			vias = []project.Via{{File: sel.Why[i]}}
		}
		for _, v := range vias {
			s.Touches = append(s.Touches, report.Touch{Project: p.Name, Workspace: p.Workspace, File: v.File, Module: v.Module})
		}
	}
	for _, d := range sel.Removed {
		s.Dropped = append(s.Dropped, report.Dropped{Name: d, How: report.DropRemoved, Files: under(sel.Files, d)})
	}
	for _, m := range sel.NowModules {
		s.Dropped = append(s.Dropped, report.Dropped{Name: m.Dir, How: report.DropToModule, Files: m.UsedBy})
	}
	for _, v := range sel.Vanished {
		if slices.Contains(sel.Removed, v.Project.Dir) {
			continue // drawn once, as removed
		}
		s.Dropped = append(s.Dropped, report.Dropped{Name: v.Project.Name, How: report.DropVanished, Files: []string{v.File}})
	}
	return s
}

// under are the files directly in dir (the Terraform files whose removal removed it).
func under(files []string, dir string) []string {
	var out []string
	for _, f := range files {
		if path.Dir(f) == dir || (dir == "." && !strings.Contains(f, "/")) {
			out = append(out, f)
		}
	}
	return out
}
