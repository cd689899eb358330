package pipeline

import (
	"slices"

	"github.com/tfgate/tfgate/internal/report"
)

// addScope adds a matrix job's scope to the merge: every job of one change shares its
// changed files, shared files and dropped projects (the first job's are kept), and holds
// the touches of its own projects.
func (m *merger) addScope(s *report.Scope) {
	if s == nil {
		return
	}
	if m.scope == nil {
		m.scope = &report.Scope{Files: s.Files, Shared: s.Shared, Dropped: s.Dropped}
		m.touched = map[report.Touch]bool{}
	}
	for _, t := range s.Touches {
		if !m.touched[t] { // a project two results hold is drawn once
			m.touched[t] = true
			m.scope.Touches = append(m.scope.Touches, t)
		}
	}
}

// mergedScope is the merged scope with its touches in project order (index: a project's
// place by name and workspace), as one plan of every project lists them.
func (m *merger) mergedScope(index map[string]int) *report.Scope {
	if m.scope == nil {
		return nil
	}
	order := func(t report.Touch) int {
		if i, ok := index[projectKey(t.Project, t.Workspace)]; ok {
			return i
		}
		return len(index)
	}
	slices.SortStableFunc(m.scope.Touches, func(a, b report.Touch) int { return order(a) - order(b) })
	return m.scope
}
