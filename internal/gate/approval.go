package gate

import (
	"slices"
	"strings"

	"github.com/tfgate/tfgate/internal/english"
)

// The approval policies' decision (docs/approval-policies.md): rules named approval in the
// base commit's policies may raise a project's count, require owner teams, or — only when
// every one of them says lower — lower the count below min_approvals. Never below one
// approval, and never below destroy_min_approvals for a plan that destroys: the destroy
// tier is configuration, not policy. The owners a policy requires are owner needs
// (owners.go: ownerNeeds), worded and met as approval.teams' are.

// Approval is what the approval policies decided for a project's plan.
type Approval struct {
	Required int      // the count the policies ask for
	Lower    bool     // every policy said the count may go below min_approvals
	Teams    []string // owners ("org/team" or a login) who must each approve
	Reasons  []string // why, for people
}

// Equal reports whether a and b decide the same (nil: no decision).
func (a *Approval) Equal(b *Approval) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Required == b.Required && a.Lower == b.Lower && slices.Equal(a.Teams, b.Teams) && slices.Equal(a.Reasons, b.Reasons)
}

// needed is the approvals p needs: min_approvals, raised (or, when every approval policy
// says so, lowered, to one at least) by the policies' count, then at least the destroy
// tier for a plan that destroys.
func needed(p Project) int {
	n := max(0, p.Rules.MinApprovals)
	if a := p.Approval; a != nil {
		switch {
		case a.Required > n:
			n = a.Required
		case a.Lower && a.Required < n:
			n = max(a.Required, 1)
		}
	}
	if p.Destroys {
		n = max(n, p.Rules.DestroyMinApprovals)
	}
	return n
}

// approvalWhy is the policies' decision in a few words for the status and the gate line,
// "2 approvals incl. @acme/platform — prod, destroys 1"; "" when they decided nothing.
func approvalWhy(p Project, needed int) string {
	a := p.Approval
	if a == nil {
		return ""
	}
	text := english.Plural(needed, "approval", "approvals")
	if len(a.Teams) > 0 {
		text += " incl. " + mentions(a.Teams)
	}
	if len(a.Reasons) > 0 {
		text += " — " + strings.Join(a.Reasons, ", ")
	}
	return text
}

func mentions(owners []string) string {
	out := make([]string, len(owners))
	for i, o := range owners {
		out[i] = "@" + strings.TrimPrefix(o, "@")
	}
	return strings.Join(out, ", ")
}

// ApprovalTeams are the "org/team" owners the projects' approval policies require, whose
// membership the gate must be told (Facts.Teams).
func ApprovalTeams(projects []Project) []string {
	var out []string
	for _, p := range projects {
		if p.Approval == nil {
			continue
		}
		for _, t := range p.Approval.Teams {
			if strings.Contains(t, "/") && !slices.Contains(out, t) {
				out = append(out, t)
			}
		}
	}
	slices.Sort(out)
	return out
}

// approvalsText is the shortfall's reason: how many more, and, when the approval policies
// decided, why that many.
func approvalsText(p Project, needed, has int, head string, approvers []string) string {
	text := needMore(needed-has, head, approvers)
	if why := approvalWhy(p, needed); why != "" {
		return text + "; approval policy: " + why
	}
	if p.Destroys && needed == p.Rules.DestroyMinApprovals && needed > max(0, p.Rules.MinApprovals) {
		text += "; a plan that destroys or replaces needs " + english.Plural(needed, "approval", "approvals")
	}
	return text
}

// policyWhys are the projects' approval policy decisions, each once, for an allowed status.
func (v Verdict) policyWhys() string {
	var out []string
	for _, p := range v.Projects {
		if p.ApprovalWhy != "" && !slices.Contains(out, p.ApprovalWhy) {
			out = append(out, p.ApprovalWhy)
		}
	}
	if len(out) == 0 {
		return ""
	}
	return " (" + strings.Join(out, "; ") + ")"
}

// describe is the decision for a refusal: "2 approvals incl. @acme/platform — prod".
func (a *Approval) describe() string {
	if a == nil {
		return "none"
	}
	p := Project{Approval: a}
	text := approvalWhy(p, a.Required)
	if a.Lower {
		text += ", may lower"
	}
	return text
}
