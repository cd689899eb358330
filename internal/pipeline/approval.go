package pipeline

import (
	"slices"
	"strings"

	"github.com/tfgate/tfgate/internal/bundle"
	"github.com/tfgate/tfgate/internal/gate"
	"github.com/tfgate/tfgate/internal/github"
)

// The approval policies' decision (docs/approval-policies.md) as the gate takes it: recorded
// in the manifest's policy verdict at plan, derived again from the plan file at apply.

// gateApproval is v's approval decision for the gate; nil when there is none, or when the
// policies did not evaluate (the gate refuses that anyway).
func gateApproval(v *bundle.PolicyVerdict) *gate.Approval {
	if v == nil || v.Approval == nil || v.Error != "" {
		return nil
	}
	a := v.Approval
	return &gate.Approval{Required: a.Required, Lower: a.Lower, Teams: slices.Clone(a.Teams), Reasons: slices.Clone(a.Reasons)}
}

// mergeApprovals is the decision of two base commits' policies: the larger count, every
// team and reason, and lowering only when both lower (a commit whose policies decided
// nothing keeps the configured count).
func mergeApprovals(a, b *bundle.Approval) *bundle.Approval {
	if a == nil && b == nil {
		return nil
	}
	out := &bundle.Approval{}
	lower := true
	for _, x := range []*bundle.Approval{a, b} {
		if x == nil {
			lower = false
			continue
		}
		out.Required = max(out.Required, x.Required)
		lower = lower && x.Lower
		for _, t := range x.Teams {
			if !slices.ContainsFunc(out.Teams, func(have string) bool { return strings.EqualFold(have, t) }) {
				out.Teams = append(out.Teams, t)
			}
		}
		for _, r := range x.Reasons {
			if !slices.Contains(out.Reasons, r) {
				out.Reasons = append(out.Reasons, r)
			}
		}
	}
	out.Lower = lower
	slices.SortFunc(out.Teams, func(x, y string) int { return strings.Compare(strings.ToLower(x), strings.ToLower(y)) })
	return out
}

// approvalTeams are the "org/team" owners the targets' approval policies require: the gate
// must be told their membership.
func approvalTeams(targets []target) []string {
	var out []string
	for _, t := range targets {
		if a := gateApproval(t.policyVerdict()); a != nil {
			out = append(out, gate.ApprovalTeams([]gate.Project{{Approval: a}})...)
		}
	}
	return out
}

// planAuthor is data.tfgate.author as the plan run gave it to the policies: the pull
// request's author for a plan of its head (a pull_request run, or its re-plan), "" for a
// merge queue's commit, whose plan is of no one pull request. Apply evaluates the policies
// again with the same, or a policy that reads the author would decide otherwise than the
// reviewed plan's (and the manifest would be refused for it).
func planAuthor(t *target, pr github.PullRequest) string {
	if t.bundle == nil || pr.HeadSHA == "" || t.bundle.Commit != pr.HeadSHA {
		return ""
	}
	return pr.Author.Login
}
