package pipeline

import (
	"errors"

	"github.com/tfgate/tfgate/internal/gate"
	"github.com/tfgate/tfgate/internal/project"
	"github.com/tfgate/tfgate/internal/report"
)

// A plan made while earlier merges were still waiting to be applied is stale once the
// catch-up (apply_catchup.go) has applied them: terraform refuses it ("Saved plan is
// stale"). When an earlier merge of this very run applied the same project, that merge is
// the cause, and the project is refused naming it (exit 4), not failed as if something
// outside tfgate had changed the state.

// appliedFirst is the latest earlier merge of this run that applied project p (a plan it
// applied, not one found applied before), if any.
func (a *review) appliedFirst(p project.Project) (gate.Merge, bool) {
	for i := len(a.earlier) - 1; i >= 0; i-- {
		r := a.earlier[i].run
		for _, q := range r.Projects {
			if q.Name == p.Name && q.Workspace == p.Workspace && q.Status == report.StatusApplied &&
				(q.Apply == nil || q.Apply.Already == "") {
				return gate.Merge{PR: r.PR, Commit: r.Commit}, true
			}
		}
	}
	return gate.Merge{}, false
}

// refuseAppliedFirst turns out, which failed because terraform found its plan stale
// (stale), into a refusal naming the earlier merge of this run that applied p first.
func (a *review) refuseAppliedFirst(out *report.Project, p project.Project, stale bool) {
	if !stale || out.Status != report.StatusFailed {
		return
	}
	first, ok := a.appliedFirst(p)
	if !ok {
		return
	}
	out.Error = ""
	a.refuse(out, []gate.Reason{gate.AppliedFirst(first)})
}

// ErrUnfinished is returned (wrapped) when the run went to its end but projects of a merge
// it caught up did not finish (failed, interrupted, not started): their runs say which,
// and the command's last line counts them (render.ApplyOutcome).
var ErrUnfinished = errors.New("projects did not apply")

// unfinishedErr is an error of projects that did not finish, worded msg.
func unfinishedErr(msg string) error { return unfinishedError(msg) }

type unfinishedError string

func (e unfinishedError) Error() string        { return string(e) }
func (e unfinishedError) Is(target error) bool { return target == ErrUnfinished }
