package pipeline

import (
	"fmt"
	"slices"

	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/english"
	"github.com/tfgate/tfgate/internal/gate"
	"github.com/tfgate/tfgate/internal/project"
	"github.com/tfgate/tfgate/internal/render"
	"github.com/tfgate/tfgate/internal/report"
	"github.com/tfgate/tfgate/internal/stage"
)

// What the gate judges besides the planned projects: the review of what nothing plans.

// reviewTargets are the review-only items of a selection: one for the changed files that
// belong to no project, one per base project the change dropped. Each needs the pull
// request's approvals under the base's rules; none has a bundle or is ever applied.
func reviewTargets(sel stage.Selection) []target {
	var out []target
	for _, v := range sel.Vanished {
		p := v.Project
		p.Name = fmt.Sprintf("%s (dropped by the change; %s changed)", v.Project.Name, v.File)
		out = append(out, target{projectCase: projectCase{p: p, review: "vanished", baseName: v.Project.Name}})
	}
	if len(sel.Shared) > 0 {
		out = append(out, target{projectCase: projectCase{
			p:      project.Project{Name: "files outside every project (" + english.ClipList(sel.Shared, 3) + ")", Dir: ".", Workspace: "default"},
			review: "shared",
		}})
	}
	return out
}

// reviewProject is a review-only item as the gate judges it under the rules of base.
func reviewProject(base *config.Config, t target) gate.Project {
	if t.review == "shared" {
		return gate.SharedFiles(t.p.Name, base)
	}
	return gate.DroppedProject(t.p.Name, t.baseName, t.p.Workspace, base)
}

// stateAliases are the base projects with rules of their own ("name\x00workspace") that
// keep their state where p does (project.StateAddress): p may be one of them renamed and
// moved, and inherits their rules.
func stateAliases(root string, bv *stage.BaseView, p project.Project) []string {
	if bv == nil {
		return nil
	}
	addr, ok := project.StateAddress(root, p)
	if !ok {
		return nil
	}
	var out []string
	for key, a := range bv.Addrs {
		if a == addr {
			out = append(out, key)
		}
	}
	slices.Sort(out)
	return out
}

// foldReviews ends apply's judging of its review-only items: nothing applies them, so they
// leave the run, and when one of them was refused (its approvals are missing) every
// project of the merge is refused with its reasons: a change to a file terraform may read
// from any project is part of each one's apply.
func (a *review) foldReviews() {
	var kept []target
	var refused []gate.Refusal
	for _, t := range a.targets {
		if t.review == "" {
			kept = append(kept, t)
			continue
		}
		if t.result.Status != report.StatusAllowed {
			refused = append(refused, refusal(t))
		}
	}
	a.targets = kept
	if len(refused) == 0 {
		return
	}
	reasons, status := gate.UncoveredReview(refused, a.run.Verdict)
	for i := range a.targets {
		if res := &a.targets[i].result; res.Status != report.StatusFailed {
			a.refuse(res, reasons)
		}
	}
	if status != nil {
		status.Description = render.FitStatus(status.Description)
		a.run.Verdict = status
	}
}
