package stage

import "github.com/tfgate/tfgate/internal/project"

// A project the change moves to another directory is still the base commit's project:
// per-project policy rules (a production project's, by name or directory) must not be
// escaped by moving it (envs/prod/app -> envs/p/app, the same state). Change detection
// knows the counterparts (counterparts: the same name, or the same state address); the
// policies name the moved project as the base does.

// movedFrom records in sel that head project p is base project bp moved, when their
// directories differ. The first base project recorded for p stands.
func movedFrom(sel *Selection, p, bp project.Project) {
	if p.Dir == bp.Dir {
		return
	}
	if sel.MovedFrom == nil {
		sel.MovedFrom = map[string]string{}
	}
	key := p.Name + "\x00" + p.Workspace
	if _, ok := sel.MovedFrom[key]; !ok {
		sel.MovedFrom[key] = bp.Name
	}
}

// WithMoved is p naming each project the change moved (Selection.MovedFrom) as the base
// commit does, for the policies of the base; policies of the working tree are unchanged.
func (p Policies) WithMoved(moved map[string]string) Policies {
	if p.baseNames != nil {
		p.moved = moved
	}
	return p
}
