package pipeline

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tfgate/tfgate/internal/config"
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
		out = append(out, target{p: p, review: "vanished", baseName: v.Project.Name})
	}
	if len(sel.Shared) > 0 {
		out = append(out, target{
			p:      project.Project{Name: "files outside every project (" + stage.ListFiles(sel.Shared, 3) + ")", Dir: ".", Workspace: "default"},
			review: "shared",
		})
	}
	return out
}

// reviewProject is a review-only item as the gate judges it under the rules of base: files
// outside every project need the strictest approvals of any project (terraform may read
// them from any of them); a dropped project needs what the base asked for it.
func reviewProject(base *config.Config, t target) gate.Project {
	// Only the approvals count for a review-only item (no destroy, policy or mode).
	rules := base.SharedRules()
	if t.review != "shared" { // a dropped project: by its name at the base
		rules = base.RulesFor(config.Project{Name: t.baseName, Workspace: t.p.Workspace})
	}
	return gate.Project{Name: t.p.Name, Rules: rules, ReviewOnly: true}
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
	var why []string
	for _, t := range a.targets {
		if t.review == "" {
			kept = append(kept, t)
			continue
		}
		if t.result.Status != report.StatusAllowed {
			reasons := []string{t.result.Error}
			if g := t.result.Gate; g != nil && len(g.Reasons) > 0 {
				reasons = g.Texts()
			}
			why = append(why, t.p.Name+": "+strings.Join(reasons, "; "))
		}
	}
	a.targets = kept
	if len(why) == 0 {
		return
	}
	for i := range a.targets {
		res := &a.targets[i].result
		if res.Status == report.StatusFailed {
			continue
		}
		res.Status = report.StatusRefused
		if res.Gate == nil {
			res.Gate = &report.Gate{}
		}
		res.Gate.Allowed = false
		for _, w := range why {
			res.Gate.Reasons = append(res.Gate.Reasons, report.Reason{Code: gate.CodeUncoveredFiles,
				Text: "the merge also changed what no plan covers, and the review of it does not hold: " + w})
		}
	}
	if a.run.Verdict == nil || a.run.Verdict.State == report.GateAllowed {
		a.run.Verdict = &report.Verdict{State: report.GateBlocked, Description: render.FitStatus("refused: " + why[0])}
	}
}
