package pipeline

import (
	"fmt"
	"slices"

	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/gate"
	"github.com/tfgate/tfgate/internal/project"
)

// What the gate judges besides the planned projects: the review of what nothing plans.

// reviewTargets are the review-only items of a selection: one for the changed files that
// belong to no project, one per base project the change dropped. Each needs the pull
// request's approvals under the base's rules; none has a bundle or is ever applied.
func reviewTargets(sel Selection) []target {
	var out []target
	for _, v := range sel.Vanished {
		p := v.Project
		p.Name = fmt.Sprintf("%s (dropped by the change; %s changed)", v.Project.Name, v.File)
		out = append(out, target{p: p, review: "vanished", baseName: v.Project.Name})
	}
	if len(sel.Shared) > 0 {
		out = append(out, target{
			p:      project.Project{Name: "files outside every project (" + listFiles(sel.Shared, 3) + ")", Dir: ".", Workspace: "default"},
			review: "shared",
		})
	}
	return out
}

// reviewProject is a review-only item as the gate judges it under the rules of base: files
// outside every project need the strictest approvals of any project (terraform may read
// them from any of them); a dropped project needs what the base asked for it.
func reviewProject(base *config.Config, t target) gate.Project {
	rules := gate.Rules{MinApprovals: base.Approval.MinApprovals, Owners: base.Policies.Owners, Mode: config.ModeManaged}
	for _, bp := range base.Projects {
		if bp.Approval == nil {
			continue
		}
		if t.review == "shared" || bp.Name == t.baseName && bp.Workspace == t.p.Workspace {
			rules.MinApprovals = max(rules.MinApprovals, bp.Approval.MinApprovals)
		}
	}
	return gate.Project{Name: t.p.Name, Rules: rules, ReviewOnly: true}
}

// stateAliases are the base projects with rules of their own ("name\x00workspace") that
// keep their state where p does (project.StateAddress): p may be one of them renamed and
// moved, and inherits their rules.
func stateAliases(root string, bv *BaseView, p project.Project) []string {
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
