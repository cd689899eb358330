package pipeline

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/gate"
	"github.com/tfgate/tfgate/internal/git"
	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/render"
	"github.com/tfgate/tfgate/internal/report"
	"github.com/tfgate/tfgate/internal/stage"
)

// The gate as apply evaluates it: the base commit's rules, the verdicts and refusals.

// judge evaluates the gate with the base commit's rules and records every verdict.
func (a *review) judge(ctx context.Context) error {
	if a.group != nil { // a merge queue group: each project by the pull requests that changed it
		return a.judgeGroup(ctx)
	}
	rules := append([]*config.Config{a.base}, a.extraRules...)
	var owners []string // team membership is read only when an owner's approval matters
	for _, t := range a.targets {
		if pv := t.policyVerdict(); pv != nil && (pv.Denied || pv.Error != "") {
			for _, cfg := range rules {
				owners = append(owners, cfg.Policies.Owners...)
			}
			break
		}
	}
	owners = append(owners, a.neededTeams(rules)...)
	owners = append(owners, approvalTeams(a.targets)...) // the approval policies' teams
	reviews, facts, err := CollectFacts(ctx, a.gh.API, a.repo, a.pr, slices.Compact(slices.Sorted(slices.Values(owners))))
	if err != nil {
		return fmt.Errorf("read the reviews of pull request #%d (nothing is applied without them): %w", a.pr.Number, err)
	}
	plans, err := a.planHistory(ctx, reviews, facts)
	if err != nil {
		return err
	}
	var vs []gate.Verdict
	for _, cfg := range rules { // the gate must hold under every configuration the rules may come from
		in := gate.Input{
			PR:      gate.PullRequest{Number: a.pr.Number, Author: a.pr.Author.Login, HeadSHA: a.pr.HeadSHA, Fork: a.pr.Fork},
			Reviews: reviews, Facts: facts, Freeze: a.freeze(cfg), QueueSHA: a.queue,
			NoReadGuard: a.noReadGuard(cfg), Plans: plans,
		}
		for _, t := range a.targets {
			in.Projects = append(in.Projects, a.ownedProject(cfg, t))
		}
		vs = append(vs, gate.Evaluate(in))
	}
	a.finishRefusals(&verdicts{all: vs, reviews: reviews})
	a.run.Verdict = a.verdict(vs[0])
	return nil
}

// verdict is the run's verdict as its status says it: the gate's own, unless gate.Overrule
// says what refused the projects beyond it.
func (a *review) verdict(v gate.Verdict) *report.Verdict {
	var refused []gate.Refusal
	pending := true
	for _, t := range a.targets {
		if t.result.Status != report.StatusAllowed {
			refused = append(refused, refusal(t))
			pending = pending && t.result.Gate != nil && t.result.Gate.Pending
		}
	}
	ov, overruled := gate.Overrule(v, refused, pending)
	if !overruled {
		return &report.Verdict{State: v.State(), Description: v.Description(github.MaxStatusDescription)}
	}
	ov.Description = render.FitStatus(ov.Description)
	return &ov
}

// freeze is why applying is frozen under the rules cfg: TFGATE_FREEZE, or apply.freeze in
// cfg or in the merge itself; "" when it is not.
func (a *runFacts) freeze(cfg *config.Config) string {
	switch {
	case a.frozen != "":
		return a.frozen + " (TFGATE_FREEZE)"
	case cfg.Apply.Freeze:
		return "apply.freeze is true in " + config.FileName + " on the default branch"
	case a.Config.Apply.Freeze:
		return "this merge sets apply.freeze: true in " + config.FileName
	}
	return ""
}

// noReadGuard is why terraform would run here without the read guard that cfg (or the
// merge itself) requires; "" when it runs under it or it is not required.
func (a *runFacts) noReadGuard(cfg *config.Config) string {
	if cfg.Apply.ReadGuard != config.ReadGuardRequired && a.Config.Apply.ReadGuard != config.ReadGuardRequired {
		return ""
	}
	return stage.GuardUnavailable()
}

// gateProject is what the gate needs to know of one target under the rules of base
// (config.RulesFor: by name, directory or state address, t.aliases; the strictest when
// several match; observed when either side observes it).
func gateProject(base *config.Config, t target) gate.Project {
	if t.review != "" {
		return reviewProject(base, t)
	}
	rules := base.RulesFor(config.Project{Name: t.p.Name, Dir: t.p.Dir, Workspace: t.p.Workspace, Mode: t.p.Mode}, t.aliases...)
	gp := gate.Project{Name: t.p.Name, Rules: rules}
	if m := t.bundle; m != nil {
		gp.HasBundle, gp.BundleCommit, gp.Applicable = true, m.Commit, m.Applicable
		gp.Destroys = m.Summary.Destroy > 0 || m.Summary.Replace > 0
		gp.Plan = gate.PlanPrint{Digest: m.ChangesDigest, Summary: m.Summary}
		if d := t.derived; d != nil { // what the plan file does, not what its manifest says
			gp.Destroys = d.destroys()
			gp.Plan = gate.PlanPrint{Digest: d.digest, Summary: d.summary}
		}
		if pv := t.policyVerdict(); pv != nil {
			gp.PolicyDenied, gp.PolicyDenies, gp.PolicyError = pv.Denied, pv.Denies, pv.Error
			gp.Approval = gateApproval(pv)
		}
	}
	return gp
}

// verdicts are the gate's verdicts (one per configuration the rules come from) with the
// reviews they judged, to date the approvals.
type verdicts struct {
	all     []gate.Verdict
	reviews []gate.Review
}

// finishRefusals turns problems and verdicts into each target's result: failed (its
// bundle could not be opened), refused (with every reason), or allowed.
func (a *review) finishRefusals(vs *verdicts) {
	for i := range a.targets {
		t := &a.targets[i]
		res := report.Project{Name: t.p.Name, Dir: t.p.Dir, Workspace: t.p.Workspace}
		var judged verdicts
		if vs != nil {
			judged = *vs
		}
		j := gate.Judge(t.p.Name, t.problems, judged.all)
		g := &report.Gate{Approvals: approvals(j.Approvers, judged.reviews, a.pr.HeadSHA), PolicyOverriddenBy: j.PolicyOverriddenBy}
		reasons := j.Reasons
		g.Allowed = len(reasons) == 0 && t.failure == ""
		g.Pending = !g.Allowed && j.Pending
		res.Gate = g
		if m := t.bundle; m != nil {
			res.Apply = &report.Apply{PlanSHA256: m.PlanSHA256, InputHash: m.InputHash, TerraformVersion: m.TerraformVersion, Summary: m.Summary}
			if t.derived != nil { // what the plan file does
				res.Apply.Summary = t.derived.summary
			}
		}
		switch {
		case t.failure != "":
			res.Status, res.Error = report.StatusFailed, a.Masker.String(t.failure)
			for _, r := range reasons { // masked as a refusal's are: they reach the status
				r.Text = a.Masker.String(r.Text)
				g.Reasons = append(g.Reasons, report.Reason(r))
			}
		case len(reasons) > 0:
			a.refuse(&res, reasons)
		default:
			res.Status = report.StatusAllowed
		}
		t.result = res
	}
}

// refuse refuses res for the gate's reasons, added to its own: the one place a project's
// result becomes refused. The reasons are masked: terraform never wrote them, but a path
// or a policy message can quote anything.
func (a *review) refuse(res *report.Project, reasons []gate.Reason) {
	if res.Gate == nil {
		res.Gate = &report.Gate{}
	}
	res.Status, res.Gate.Allowed = report.StatusRefused, false
	for _, r := range reasons {
		r.Text = a.Masker.String(r.Text)
		res.Gate.Reasons = append(res.Gate.Reasons, report.Reason(r))
	}
}

// approvals dates the approvers' counted reviews: each one's latest approval of head.
func approvals(logins []string, reviews []gate.Review, head string) []report.Approval {
	var out []report.Approval
	for _, login := range logins {
		ap := report.Approval{Login: login, Commit: head}
		for _, r := range reviews {
			if strings.EqualFold(r.Login, login) && r.State == "APPROVED" && r.CommitID == head && r.SubmittedAt.After(ap.At) {
				ap.At = r.SubmittedAt
			}
		}
		out = append(out, ap)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].At.Before(out[j].At) })
	return out
}

// refusedNames lists the refused projects for the error message.
func refusedNames(r report.Run) string { return strings.Join(refused(r), ", ") }

// refused are the names of r's refused projects.
func refused(r report.Run) []string {
	var names []string
	for _, p := range r.Projects {
		if p.Status == report.StatusRefused {
			names = append(names, p.Name)
		}
	}
	return names
}

// hasPolicies reports whether the configuration cfg at commit rev has policy files.
func hasPolicies(ctx context.Context, root string, cfg *config.Config, rev string) (bool, error) {
	candidates := cfg.Policies.Paths
	if len(candidates) == 0 {
		candidates = []string{stage.DefaultPolicyDir}
	}
	fsys, err := git.Git{Dir: root}.TreeFS(ctx, rev, candidates)
	if err != nil {
		return false, err
	}
	return len(stage.PolicyPaths(cfg, fsys)) > 0, nil
}
