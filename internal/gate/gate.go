// Package gate is the approval gate: a pure function of the approval rules, the pull
// request, its reviews, what GitHub says about the reviewers, and each project's plan
// bundle and policy result, to a verdict per project with every reason it may not apply.
// It also holds bundle acceptance (AcceptBundle, accept.go: is the bundle found on the
// merge the reviewed one), the rule that a change request blocks (reviews.go), whether a
// plan terraform refused as stale was already applied (applied.go), and every reason code
// (gate.go, codes.go; documented in docs/gate-and-apply.md).
//
// It does no I/O and reads no clock: internal/pipeline collects the facts (CollectFacts)
// and the bundles, and renders and publishes the verdict. Everything it cannot prove
// refuses: an unknown permission, an unreadable team, a missing plan, a policy that did not
// evaluate.
package gate

import (
	"slices"
	"strings"
	"time"

	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/english"
)

// Rules are a project's approval rules, read from the pull request's base commit: what
// config.RulesFor computes (the one place they are).
type Rules = config.Rules

// PullRequest is the pull request whose head commit was planned.
type PullRequest struct {
	Number  int
	Author  string // login
	HeadSHA string
	Fork    bool // the head repository is not the base repository
}

// Review is a pull request review as GitHub lists it.
type Review struct {
	ID          int64
	Login       string
	State       string // APPROVED, CHANGES_REQUESTED, COMMENTED, DISMISSED, PENDING
	CommitID    string
	SubmittedAt time.Time
}

// Review states.
const (
	Approved         = "APPROVED"
	ChangesRequested = "CHANGES_REQUESTED"
	Commented        = "COMMENTED"
	Dismissed        = "DISMISSED"
	PendingReview    = "PENDING"
)

// Facts are what GitHub says about the reviewers, keyed by lower-case login.
type Facts struct {
	// Permissions is the repository permission (admin, maintain, write, triage, read or
	// none) of each approver and each reviewer requesting changes. An approver missing
	// counts as none; a change requester missing blocks, as one with write access does.
	Permissions map[string]string
	// Teams is what is known of each "org/team" owner, keyed as in Rules.Owners (case is
	// ignored).
	Teams map[string]Team
}

// Team is what is known of an owner team.
type Team struct {
	Members map[string]bool // lower-case login → active member; a login missing is not a member
	// Unreadable says why the team's membership could not be read ("" = it was read): no
	// one counts as its member then, and the gate says which permission the token lacks.
	Unreadable string
}

// Project is one project of the pull request: its rules, its plan bundle and the policy
// result of that plan.
type Project struct {
	Name  string
	Rules Rules

	HasBundle    bool
	BundleCommit string // the commit the bundle was planned on
	Applicable   bool   // false for a bundle planned from a fork or a dirty tree: never applied

	Destroys bool // the plan deletes or replaces anything: the destroy tier applies

	PolicyDenied bool
	PolicyDenies []string  // the deny messages, for reports
	PolicyError  string    // the policies did not evaluate: refused
	Approval     *Approval // the approval policies' decision (approval.go); nil: none

	// ReviewOnly marks what the change touches that nothing plans or applies: files that
	// belong to no project (terraform may read them), a base project the change dropped.
	// Only the review counts for it: enough approvals on the head, no change requested.
	// There is no bundle, policy, mode, freeze or fork to judge.
	ReviewOnly bool

	// OwnerNeeds are owner approvals it needs beyond Rules.Teams: its changed files'
	// CODEOWNERS (owners.go).
	OwnerNeeds []OwnerNeed
	Plan       PlanPrint // its bundle's plan: an approval of an earlier one counts only for the same (bound.go)
}

// Input is everything the gate decides on.
type Input struct {
	PR      PullRequest
	Reviews []Review // in any order
	Facts   Facts
	Freeze  string // why apply is frozen (apply.freeze); "" = not frozen
	// NoReadGuard is why terraform would run here without the read guard that
	// apply.read_guard: required asks for; "" = it runs under it, or it is not required.
	NoReadGuard string
	Projects    []Project
	// QueueSHA is the merge queue's commit for the pull request (merge_group: the exact
	// commit that lands): a bundle planned on it stands for the head's. Approvals are still
	// counted on the pull request's head. "" = no merge queue.
	QueueSHA string
	// Plans is which plan each approval was given on (bound.go); nil = not known.
	Plans *Plans
}

// Reason is one reason a project may not apply.
type Reason struct {
	Code string // one of the Code constants
	Text string // for people: what is wrong and what to do
	// Pending is set when more reviews can lift it (the gate's status is pending);
	// otherwise the project is blocked until something else changes (failure).
	Pending bool
}

// Reason codes.
const (
	CodeNoHead           = "no-head"
	CodeFork             = "fork"
	CodeFrozen           = "frozen"
	CodeNoReadGuard      = "no-read-guard"
	CodeObserve          = "observe"
	CodeNoBundle         = "no-bundle"
	CodeBundleCommit     = "bundle-commit"
	CodeNotApplicable    = "not-applicable"
	CodePolicyError      = "policy-error"
	CodeChangesRequested = "changes-requested"
	CodeApprovals        = "approvals"
	CodeSelfApproval     = "self-approval"
	CodeStaleApproval    = "stale-approval"
	CodeNoWriteAccess    = "no-write-access"
	CodePolicyDenied     = "policy-denied"
	CodeNoPolicyOwners   = "no-policy-owners"
	CodeTeamUnreadable   = "team-unreadable"
)

// ProjectVerdict is the gate's answer for one project.
type ProjectVerdict struct {
	Name    string
	Allowed bool
	Reasons []Reason // every reason it may not apply; none when Allowed
	Needed  int      // approvals the project needs
	// Approvers are the logins whose approvals count, sorted: latest review APPROVED, on
	// the head commit, not the author, with write access.
	Approvers []string
	// PolicyOverriddenBy are the approvers who are policy owners, sorted, when a policy
	// denied the plan and their approval overrides it.
	PolicyOverriddenBy []string
	// ReviewOnly is the project's: its name says what needs the review (files, a dropped
	// project), so the status always names it.
	ReviewOnly bool
	// ApprovalWhy is the approval policies' decision in words ("2 approvals incl.
	// @acme/platform — prod, destroys 1"); "" when they decided nothing.
	ApprovalWhy string
}

// Verdict is the gate's answer for the pull request.
type Verdict struct {
	Allowed  bool // every project may apply (true when there is no project)
	Projects []ProjectVerdict
	HeadSHA  string
}

// Evaluate applies the gate to in. It never stops at the first problem: every reason of
// every project is reported, so one round of fixes is enough.
func Evaluate(in Input) Verdict {
	head := in.PR.HeadSHA
	rv := tally(in.PR, in.Reviews, in.Facts.Permissions)
	v := Verdict{Allowed: true, HeadSHA: head}
	for _, p := range in.Projects {
		pv := evaluateProject(in, p, rv)
		v.Allowed = v.Allowed && pv.Allowed
		v.Projects = append(v.Projects, pv)
	}
	return v
}

func evaluateProject(in Input, p Project, rv reviews) ProjectVerdict {
	head := in.PR.HeadSHA
	rv = bound(in, p, rv) // approvals count only for the plan they were given on
	pv := ProjectVerdict{Name: p.Name, Approvers: rv.approverLogins(), ReviewOnly: p.ReviewOnly}
	var reasons []Reason
	refuse := func(code, text string, pending bool) { reasons = append(reasons, Reason{code, text, pending}) }

	if head == "" {
		refuse(CodeNoHead, "the pull request's head commit is unknown; nothing can be checked against it", false)
	}
	if !p.ReviewOnly {
		if in.PR.Fork {
			refuse(CodeFork, "the pull request comes from a fork; tfgate never applies a fork's code", false)
		}
		if in.Freeze != "" {
			refuse(CodeFrozen, "apply is frozen: "+in.Freeze, false)
		}
		if in.NoReadGuard != "" {
			refuse(CodeNoReadGuard, "apply.read_guard is required, and terraform cannot run under the read guard here ("+in.NoReadGuard+"): apply on a runner whose kernel has Landlock (GitHub's hosted Ubuntu runners do)", false)
		}
		if p.Rules.Mode == config.ModeObserve {
			refuse(CodeObserve, "observe mode: tfgate never applies it", false)
		}
		switch {
		case !p.HasBundle && in.QueueSHA != "":
			refuse(CodeNoBundle, "no plan for this project on the merge queue's commit "+short(in.QueueSHA)+"; the plan must run for it", false)
		case !p.HasBundle:
			refuse(CodeNoBundle, "no plan for this project on "+short(head)+"; the plan must run for it", false)
		case in.QueueSHA != "" && p.BundleCommit != in.QueueSHA:
			refuse(CodeBundleCommit, "the plan is of commit "+short(p.BundleCommit)+", not of the merge queue's commit "+
				short(in.QueueSHA)+"; the plan must run again on it", false)
		case in.QueueSHA == "" && p.BundleCommit != head:
			refuse(CodeBundleCommit, "the plan is of commit "+short(p.BundleCommit)+", not of the pull request's head "+
				short(head)+"; the plan must run again on "+short(head), false)
		case !p.Applicable:
			refuse(CodeNotApplicable, "the plan is marked not applicable (planned from a fork or a dirty working tree); "+
				"it must be planned again in CI", false)
		}
		if p.PolicyError != "" {
			refuse(CodePolicyError, "the policies did not evaluate ("+p.PolicyError+"); nothing applies until they do", false)
		}
	}
	for _, login := range rv.changesRequested {
		refuse(CodeChangesRequested, "@"+login+" requested changes; @"+login+" must approve, or the review must be dismissed", false)
	}

	pv.Needed = needed(p)
	pv.ApprovalWhy = approvalWhy(p, pv.Needed)
	short1 := len(rv.approvers) < pv.Needed
	if short1 {
		refuse(CodeApprovals, approvalsText(p, pv.Needed, len(rv.approvers), head, pv.Approvers), true)
	}

	ownerMissing := false
	if p.PolicyDenied {
		owners := ownerApprovers(p.Rules.Owners, rv.approvers, in.Facts.Teams)
		switch {
		case len(owners) > 0:
			pv.PolicyOverriddenBy = owners
		case len(p.Rules.Owners) == 0:
			refuse(CodeNoPolicyOwners, "denied by policy, and no policy owners are configured (policies.owners) to override it", false)
		default:
			ownerMissing = true
			refuse(CodePolicyDenied, "denied by policy; needs approval on "+short(head)+" from a policy owner ("+
				ownerList(p.Rules.Owners)+")", true)
			for _, team := range unreadableTeams(p.Rules.Owners, in.Facts.Teams) {
				reasons = append(reasons, teamUnreadable(team))
			}
		}
	}
	ownerMissing = addOwnerReasons(&reasons, p, rv, in.Facts.Teams) || ownerMissing
	// Approvals that do not count explain a shortfall; when nothing is short they are noise.
	if short1 || ownerMissing {
		reasons = append(reasons, rv.ignored...)
	}

	pv.Reasons = reasons
	pv.Allowed = len(reasons) == 0
	return pv
}

// ownerApprovers are the counted approvers who are owners: named, or active members of an
// owner team that could be read.
func ownerApprovers(owners []string, approvers []approval, teams map[string]Team) []string {
	var out []string
	for _, a := range approvers {
		for _, o := range owners {
			if isOwner(o, a.key, teams) {
				out = append(out, a.login)
				break
			}
		}
	}
	slices.Sort(out)
	return out
}

func isOwner(owner, key string, teams map[string]Team) bool {
	owner = strings.TrimPrefix(owner, "@")
	if !strings.Contains(owner, "/") {
		return strings.EqualFold(owner, key)
	}
	t, ok := team(teams, owner)
	return ok && t.Unreadable == "" && t.Members[key]
}

// team finds an owner team's facts, ignoring case as GitHub does.
func team(teams map[string]Team, name string) (Team, bool) {
	if t, ok := teams[name]; ok {
		return t, true
	}
	for k, t := range teams {
		if strings.EqualFold(k, name) {
			return t, true
		}
	}
	return Team{}, false
}

// unreadableTeams are the owner teams whose membership could not be read, or was not read
// at all (a caller that skipped one fails closed the same way).
func unreadableTeams(owners []string, teams map[string]Team) []string {
	var out []string
	for _, o := range owners {
		o = strings.TrimPrefix(o, "@")
		if !strings.Contains(o, "/") {
			continue
		}
		if t, ok := team(teams, o); !ok || t.Unreadable != "" {
			out = append(out, o)
		}
	}
	return out
}

func ownerList(owners []string) string {
	out := make([]string, len(owners))
	for i, o := range owners {
		o = strings.TrimPrefix(o, "@")
		if strings.Contains(o, "/") {
			out[i] = "a member of " + o
		} else {
			out[i] = "@" + o
		}
	}
	return strings.Join(out, ", ")
}

func needMore(n int, head string, has []string) string {
	list := "none"
	if len(has) > 0 {
		list = "@" + strings.Join(has, ", @")
	}
	return "needs " + english.Plural(n, "more approval", "more approvals") + " on " + short(head) + " (has: " + list + ")"
}

// short is a commit's 7-character abbreviation, as GitHub shows it.
func short(sha string) string {
	if sha == "" {
		return "(unknown commit)"
	}
	return english.ShortSHA(sha)
}
