package pipeline

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/gate"
	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/render"
	"github.com/tfgate/tfgate/internal/report"
)

// judgeGroup evaluates the gate of a merge queue group: each project under the approvals
// (and change requests, fork status, author, head) of every pull request of the group whose
// entry changed it — a project two of them changed needs each one's approvals — and a
// project no entry's own changes select (the group's selection saw more than the entries'
// did) under every pull request's. The group's problem, if any, refuses every project. In
// apply, a group lands as one: when any project of it is refused, none applies.
func (a *review) judgeGroup(ctx context.Context) error {
	g := a.group
	if g.problem != "" {
		why, status := gate.QueueGroup(g.problem)
		for i := range a.targets { // the first reason: nothing of the group is judged without it
			a.targets[i].problems = append([]gate.Reason{why}, a.targets[i].problems...)
		}
		a.finishRefusals(nil)
		status.Description = render.FitStatus(status.Description)
		a.run.Verdict = &status
		return nil
	}
	rules := append([]*config.Config{a.base}, a.extraRules...)
	owners := append(a.groupOwners(rules), a.neededTeams(rules)...)
	gv, err := a.groupVerdicts(ctx, rules, slices.Compact(slices.Sorted(slices.Values(owners))))
	if err != nil {
		return err
	}
	judged := &verdicts{all: gv.all, reviews: gv.reviews}
	a.finishRefusals(judged)
	if a.run.Kind == report.KindApply && a.refuseWithGroup() {
		a.finishRefusals(judged)
	}
	a.run.Verdict = a.verdict(a.combine(gv))
	return nil
}

// groupOwners are the policy owners under any of rules when a bundle of the group says a
// policy denied it or did not evaluate: team membership is read only when an owner's
// approval matters.
func (a *runFacts) groupOwners(rules []*config.Config) []string {
	var owners []string
	for _, t := range a.targets {
		if t.bundle != nil && t.bundle.Policy != nil && (t.bundle.Policy.Denied || t.bundle.Policy.Error != "") {
			for _, cfg := range rules {
				owners = append(owners, cfg.Policies.Owners...)
			}
			break
		}
	}
	owners = append(owners, approvalTeams(a.targets)...) // the approval policies' teams
	return slices.Compact(slices.Sorted(slices.Values(owners)))
}

// entryVerdicts are a merge queue group's verdicts: per entry that changed a project, one
// per configuration the rules come from, each reason saying whose pull request it is about.
type entryVerdicts struct {
	all     []gate.Verdict
	reviews []gate.Review // every entry's
	firsts  []counted     // the verdict under the first rules of each entry
}

// counted is the verdict under the first rules of one pull request of a group, with what
// dates its approvals.
type counted struct {
	v       int // in entryVerdicts.all
	reviews []gate.Review
	head    string
}

// groupVerdicts evaluates the gate for each entry of the group, on the projects its
// pull request changed and those no entry's own changes select.
func (a *review) groupVerdicts(ctx context.Context, rules []*config.Config, owners []string) (entryVerdicts, error) {
	attributed := map[string]bool{}
	for _, e := range a.group.entries {
		for k := range e.projects {
			attributed[k] = true
		}
	}
	api := &cachedGateAPI{GateAPI: a.gh.API}
	var gv entryVerdicts
	for _, e := range a.group.entries {
		var idx []int
		for j, t := range a.targets {
			if k := entryKey(t.p); e.projects[k] || !attributed[k] {
				idx = append(idx, j)
			}
		}
		if len(idx) == 0 {
			continue // its entry changed no project: nothing of it to approve
		}
		reviews, facts, err := CollectFacts(ctx, api, a.repo, e.pr, owners)
		if err != nil {
			return gv, fmt.Errorf("read the reviews of pull request #%d of the merge group (nothing is applied without them): %w", e.pr.Number, err)
		}
		gv.reviews = append(gv.reviews, reviews...)
		for k, cfg := range rules {
			in := gate.Input{
				PR:      gate.PullRequest{Number: e.pr.Number, Author: e.pr.Author.Login, HeadSHA: e.pr.HeadSHA, Fork: e.pr.Fork},
				Reviews: reviews, Facts: facts, Freeze: a.freeze(cfg), QueueSHA: a.queue,
				NoReadGuard: a.noReadGuard(cfg),
			}
			for _, j := range idx {
				in.Projects = append(in.Projects, a.ownedProject(cfg, a.targets[j]))
			}
			v := gate.Evaluate(in)
			v.NamePull(e.pr.Number) // every reason says whose pull request it is about
			if k == 0 {
				gv.firsts = append(gv.firsts, counted{v: len(gv.all), reviews: reviews, head: e.pr.HeadSHA})
			}
			gv.all = append(gv.all, v)
		}
	}
	if len(gv.all) == 0 { // no entry changed a project the group selected: judge them all by the head's
		gv.all = append(gv.all, gate.Verdict{Allowed: true, HeadSHA: a.pr.HeadSHA})
	}
	return gv, nil
}

// combine is the group's verdict: each project allowed when every verdict allows it, with
// every reason, and the approvals that counted, each on its own pull request's head (set
// on the project's result too).
func (a *review) combine(gv entryVerdicts) gate.Verdict {
	combined := gate.Verdict{Allowed: true, HeadSHA: a.pr.HeadSHA}
	for i := range a.targets {
		t := &a.targets[i]
		pv := gate.ProjectVerdict{Name: t.p.Name, Allowed: true}
		var dated []report.Approval
		for _, c := range gv.firsts {
			for _, p := range gv.all[c.v].Projects {
				if p.Name == t.p.Name {
					dated = append(dated, approvals(p.Approvers, c.reviews, c.head)...)
					pv.Approvers = append(pv.Approvers, p.Approvers...)
				}
			}
		}
		for _, v := range gv.all {
			for _, p := range v.Projects {
				if p.Name == t.p.Name {
					pv.Allowed = pv.Allowed && p.Allowed
					pv.Reasons = append(pv.Reasons, p.Reasons...)
					pv.PolicyOverriddenBy = append(pv.PolicyOverriddenBy, p.PolicyOverriddenBy...)
				}
			}
		}
		if t.result.Gate != nil {
			t.result.Gate.Approvals = dated
		}
		combined.Allowed = combined.Allowed && pv.Allowed
		combined.Projects = append(combined.Projects, pv)
	}
	return combined
}

// refuseWithGroup refuses every project of the group when one of them is refused: the
// group landed as one commit, and what one unreviewed pull request brought in (a file
// another project reads, a module) may reach the others. It reports whether it refused any.
func (a *review) refuseWithGroup() bool {
	var refused []gate.Refusal
	for _, t := range a.targets {
		if t.result.Status == report.StatusRefused {
			refused = append(refused, refusal(t))
		}
	}
	if len(refused) == 0 {
		return false
	}
	changed := false
	for i := range a.targets {
		t := &a.targets[i]
		if t.result.Status == report.StatusAllowed {
			t.problems = append(t.problems, gate.GroupRefused(refused))
			changed = true
		}
	}
	return changed
}

// refusal is t's result as the gate names a refused project: its name and its reasons'
// texts, or its error when it has none.
func refusal(t target) gate.Refusal {
	if g := t.result.Gate; g != nil && len(g.Reasons) > 0 {
		return gate.Refusal{Name: t.p.Name, Reasons: g.Texts()}
	}
	return gate.Refusal{Name: t.p.Name, Reasons: []string{t.result.Error}}
}

// cachedGateAPI asks GitHub once per login for what does not depend on the pull request:
// the repository permission, team membership.
type cachedGateAPI struct {
	GateAPI
	perms map[string]string
	teams map[string]bool
}

func (c *cachedGateAPI) CollaboratorPermission(ctx context.Context, repo github.Repo, login string) (string, error) {
	key := strings.ToLower(login)
	if p, ok := c.perms[key]; ok {
		return p, nil
	}
	p, err := c.GateAPI.CollaboratorPermission(ctx, repo, login)
	if err != nil {
		return "", err
	}
	if c.perms == nil {
		c.perms = map[string]string{}
	}
	c.perms[key] = p
	return p, nil
}

func (c *cachedGateAPI) TeamMembership(ctx context.Context, org, team, login string) (bool, error) {
	key := strings.ToLower(org + "/" + team + "/" + login)
	if m, ok := c.teams[key]; ok {
		return m, nil
	}
	m, err := c.GateAPI.TeamMembership(ctx, org, team, login)
	if err != nil {
		return false, err
	}
	if c.teams == nil {
		c.teams = map[string]bool{}
	}
	c.teams[key] = m
	return m, nil
}
