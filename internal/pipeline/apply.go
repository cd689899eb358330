package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/tfgate/tfgate/internal/bundle"
	"github.com/tfgate/tfgate/internal/ci"
	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/gate"
	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/project"
	"github.com/tfgate/tfgate/internal/report"
	"github.com/tfgate/tfgate/internal/secret"
	"github.com/tfgate/tfgate/internal/terraform"
)

// Commit status contexts of the gate and of apply, for branch protection to require.
const (
	StatusGate  = "tfgate/gate"
	StatusApply = "tfgate/apply"
)

// ApplyRequest is everything `tfgate apply` was asked to do.
type ApplyRequest struct {
	Root       string
	Config     *config.Config // the working tree's (the merge commit's): which projects exist
	ConfigFile string         // read again at the base commit for the rules
	Names      []string       // apply only these of the merged pull request's projects
	PR         int            // --pr: the merged pull request to apply (workflow_dispatch); 0 = find it from the commit
	Plans      bundle.Store   // where the reviewed bundles are
	PlanKey    string         // TFGATE_PLAN_KEY: opens encrypted bundles
	DryRun     bool
	Freeze     string // TFGATE_FREEZE: a reason refuses every apply
	Terraform  TerraformOptions
	Env        map[string]string
	Parallel   int
	// LockTimeout is how long terraform waits for a state lock another run holds.
	LockTimeout time.Duration
	// GitHub is required: the pull request, its reviews and the reviewers' permissions come
	// from there. Its API may be read-only for a dry run.
	GitHub   *GitHubRun
	AuditLog string // append one JSON line per project here; "" = none

	Masker        *secret.Masker
	Progress      Progress
	Warn          func(string)
	Log           *slog.Logger
	TfgateVersion string
	Now           func() time.Time
}

// ErrGateRefused is returned (wrapped) when the gate refused at least one project: exit 4.
var ErrGateRefused = errors.New("the approval gate refused")

// RunApply is `tfgate apply`: find the merged pull request of the commit checked out,
// fetch the bundles reviewed on its head, verify each against the merge commit, evaluate
// the gate with the base commit's rules and apply the saved plans that pass, in depends_on
// order; then publish the audit (comment, status, job summary, audit log). Refused and
// failed projects are in the run; the error is for what stopped the run, for an
// interrupted run, and wraps ErrGateRefused when anything was refused.
func RunApply(ctx context.Context, req ApplyRequest) (report.Run, error) {
	req.defaults()
	a := &applier{req: req, run: report.Run{Kind: report.KindApply, DryRun: req.DryRun}}
	err := a.prepare(ctx)
	if err == nil {
		err = a.apply(ctx)
	}
	if perr := a.publish(ctx, err); perr != nil && err == nil {
		err = perr
	}
	if err == nil && a.run.Count(report.StatusRefused) > 0 {
		err = fmt.Errorf("%w %s", ErrGateRefused, refusedNames(a.run))
	}
	return a.run, err
}

func (req *ApplyRequest) defaults() {
	if req.Log == nil {
		req.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if req.Warn == nil {
		req.Warn = func(string) {}
	}
	if req.Now == nil {
		req.Now = time.Now
	}
	if req.Masker == nil {
		req.Masker = secret.NewMasker(nil)
	}
}

// applier is one apply run's state, filled in by its steps.
type applier struct {
	req     ApplyRequest
	run     report.Run
	repo    github.Repo
	pr      github.PullRequest
	base    *config.Config // the rules
	targets []target
	bin     terraform.Binary
	scratch string
	// policies: the rules before the merge have policies, so a bundle must carry their
	// verdict.
	policies bool
}

// target is one project the merge changed, with its bundle and verdicts.
type target struct {
	p        project.Project
	bundle   *bundle.Manifest // nil: none was planned for the reviewed commit
	dir      string           // the bundle's directory
	opened   bundle.Opened
	problems []string // why the bundle cannot be applied (verification)
	failure  string   // an error opening it (not a refusal)
	result   report.Project
}

// prepare finds the pull request, the rules, the changed projects and their bundles,
// verifies every bundle and evaluates the gate. What it refuses is in a.run.
func (a *applier) prepare(ctx context.Context) error {
	req := a.req
	if req.GitHub == nil || req.GitHub.API == nil {
		return errors.New("tfgate apply checks the approval gate on GitHub (the pull request, its reviews, the reviewers' permissions): run it in GitHub Actions with GITHUB_TOKEN, or pass --publish github")
	}
	if req.Plans == nil {
		return errors.New("tfgate apply needs the reviewed plan bundles: --plans DIR (what `tfgate plan --out DIR` wrote) or --plans github (the workflow's artifacts)")
	}
	gh := req.GitHub
	a.repo = github.Repo{Owner: gh.Event.Owner, Name: gh.Event.Repo}
	git := ci.Git{Dir: req.Root}
	head, err := git.Head(ctx)
	if err != nil {
		return err
	}
	a.run.Commit = head
	if dirty, err := git.Dirty(ctx); err != nil {
		return err
	} else if dirty {
		return fmt.Errorf("the working tree has uncommitted changes: apply verifies the reviewed plans against commit %s exactly; check out a clean commit", short(head))
	}
	if gh.Event.Name == "push" && gh.Event.HeadSHA != "" && gh.Event.HeadSHA != head {
		return fmt.Errorf("the checked out commit %s is not the pushed commit %s: check out the push (actions/checkout does by default)", short(head), short(gh.Event.HeadSHA))
	}
	pr, found, err := a.findPR(ctx, head)
	if err != nil {
		return err
	}
	baseRev := head + "^1"
	if found {
		a.pr = pr
		a.run.PR, a.run.Reviewed = pr.Number, pr.HeadSHA
	}
	if _, ok := firstParent(ctx, git, head); !ok {
		return fmt.Errorf("commit %s has no parent in this clone: apply compares the merge with the branch before it; fetch more history (actions/checkout with fetch-depth: 2)", short(head))
	}
	_, base, source, err := BaseConfig(ctx, req.Root, req.ConfigFile, baseRev)
	if err != nil {
		return fmt.Errorf("read the rules (the configuration before the merge): %w", err)
	}
	a.base = base
	req.Log.Info("apply rules", "source", source)
	if a.policies, err = hasPolicies(ctx, req.Root, base, baseRev); err != nil {
		return fmt.Errorf("read the policies before the merge: %w", err)
	}

	sel, err := Select(ctx, SelectOptions{Root: req.Root, Config: req.Config, Changed: true, Base: baseRev})
	if err != nil {
		return err
	}
	a.run.Base, a.run.MergeBase, a.run.Notes = "", short(sel.MergeBase), sel.Notes
	projects := sel.Projects
	if len(req.Names) > 0 {
		if projects, err = pick(projects, req.Names); err != nil {
			return err
		}
	}
	if len(projects) == 0 {
		a.run.Notes = append(a.run.Notes, fmt.Sprintf("The merge %s changes no project: nothing to apply.", short(head)))
		return nil
	}
	for _, p := range projects {
		a.targets = append(a.targets, target{p: p})
	}
	if !found {
		why := fmt.Sprintf("commit %s is not the merge of a pull request: tfgate applies only plans reviewed on a pull request", short(head))
		if req.PR == 0 && pr.Number != 0 {
			why = fmt.Sprintf("pull request #%d is not merged: tfgate applies a pull request's plans once it is merged", pr.Number)
		}
		a.refuseAll(why)
		return nil
	}
	if err := a.loadBundles(ctx); err != nil {
		return err
	}
	if a.bin, err = ResolveTerraform(ctx, req.Config, req.Terraform); err != nil {
		return err
	}
	for i := range a.targets {
		a.verify(ctx, &a.targets[i])
	}
	return a.judge(ctx)
}

// findPR is the merged pull request the commit applies: --pr, or the one GitHub associates
// with the commit whose merge commit it is. found is false when there is none (pr may
// then name an unmerged one, for the message).
func (a *applier) findPR(ctx context.Context, head string) (github.PullRequest, bool, error) {
	api := a.req.GitHub.API
	if a.req.PR > 0 {
		pr, err := api.GetPull(ctx, a.repo, a.req.PR)
		if err != nil {
			return pr, false, fmt.Errorf("read pull request #%d: %w", a.req.PR, err)
		}
		return pr, pr.Merged, nil
	}
	pulls, err := api.ListCommitPulls(ctx, a.repo, head)
	if err != nil {
		return github.PullRequest{}, false, fmt.Errorf("find the pull request of commit %s: %w", short(head), err)
	}
	var unmerged github.PullRequest
	for _, pr := range pulls {
		if pr.Merged && pr.MergeCommitSHA == head {
			return pr, true, nil
		}
		if !pr.Merged {
			unmerged = pr
		}
	}
	return unmerged, false, nil
}

// firstParent resolves commit^1.
func firstParent(ctx context.Context, git ci.Git, commit string) (string, bool) {
	sha, err := git.Commit(ctx, commit+"^1")
	return sha, err == nil
}

// pick keeps the projects named (by name or dir); a name that is not among them is an error.
func pick(projects []project.Project, names []string) ([]project.Project, error) {
	var out []project.Project
	for _, n := range names {
		i := slices.IndexFunc(projects, func(p project.Project) bool { return p.Name == n || p.Dir == n })
		if i < 0 {
			return nil, fmt.Errorf("project %q is not among the projects the merge changed", n)
		}
		if !slices.ContainsFunc(out, func(p project.Project) bool { return p.Name == projects[i].Name }) {
			out = append(out, projects[i])
		}
	}
	return out, nil
}

func (a *applier) refuseAll(why string) {
	for i := range a.targets {
		a.targets[i].problems = append(a.targets[i].problems, why)
	}
	a.finishRefusals(nil)
}

// loadBundles fetches the bundles planned for the pull request's head and matches them to
// the targets by project and workspace.
func (a *applier) loadBundles(ctx context.Context) error {
	scratch, err := os.MkdirTemp("", "tfgate-apply-")
	if err != nil {
		return err
	}
	a.scratch = scratch
	want := bundle.Want{PR: a.pr.Number, HeadSHA: a.pr.HeadSHA, ArtifactName: a.req.GitHub.ArtifactName}
	if want.ArtifactName == "" {
		want.ArtifactName = "tfgate-plan-" + a.pr.HeadSHA
	}
	dir, err := a.req.Plans.Fetch(ctx, want, filepath.Join(scratch, "fetched"))
	if errors.Is(err, bundle.ErrNoBundle) || errors.Is(err, bundle.ErrUnsafeArchive) {
		// No plan was reviewed, or what claims to be one was built to escape its directory:
		// a refusal of every project, not an error to retry.
		a.refuseAll(err.Error())
		return nil
	}
	if err != nil {
		return fmt.Errorf("fetch the reviewed plans from %s: %w", a.req.Plans, err)
	}
	dirs, err := bundle.List(ctx, dir)
	if err != nil {
		return err
	}
	type found struct {
		m   bundle.Manifest
		dir string
	}
	byKey := map[string]found{}
	for _, d := range dirs {
		m, err := bundle.Read(ctx, d)
		if err != nil {
			return fmt.Errorf("%s: %w", a.req.Plans, err)
		}
		key := m.Project + "\x00" + m.Workspace
		if _, dup := byKey[key]; dup {
			return fmt.Errorf("%s holds two bundles of project %s (workspace %s): refusing to guess which was reviewed", a.req.Plans, m.Project, m.Workspace)
		}
		byKey[key] = found{m, d}
	}
	for i := range a.targets {
		t := &a.targets[i]
		if f, ok := byKey[t.p.Name+"\x00"+t.p.Workspace]; ok {
			t.bundle, t.dir = &f.m, f.dir
		}
	}
	return nil
}

// verify checks one bundle against the merge commit: the plan file is the one planned
// (sha256, and it decrypts), the project's inputs are those the plan was made from, the
// terraform version is the one that planned it. What does not hold is a problem (a
// refusal); a bundle that cannot be opened at all (no key, wrong key) is a failure.
func (a *applier) verify(ctx context.Context, t *target) {
	m := t.bundle
	if m == nil {
		return // the gate refuses a project without a bundle
	}
	if m.Dir != t.p.Dir {
		t.problems = append(t.problems, fmt.Sprintf("its bundle is of directory %s, but the project is in %s", m.Dir, t.p.Dir))
	}
	if m.Policy == nil && a.policies {
		t.problems = append(t.problems, "it was planned without policies, but the rules before the merge have policies: plan it again so that they judge it")
	}
	if m.PR != 0 && m.PR != a.pr.Number {
		t.problems = append(t.problems, fmt.Sprintf("its bundle was planned for pull request #%d, not #%d", m.PR, a.pr.Number))
	}
	scratch := filepath.Join(a.scratch, "open", bundle.DirName(t.p.Name, t.p.Workspace))
	if err := os.MkdirAll(scratch, 0o700); err != nil {
		t.failure = err.Error()
		return
	}
	opened, err := bundle.Open(ctx, t.dir, a.req.PlanKey, scratch)
	switch {
	case errors.Is(err, bundle.ErrTampered), errors.Is(err, bundle.ErrUnencrypted), errors.Is(err, bundle.ErrMalformed):
		t.problems = append(t.problems, err.Error())
		return
	case err != nil:
		t.failure = err.Error()
		return
	}
	t.opened = opened
	files, err := project.InputFiles(ctx, a.req.Root, t.p)
	if err != nil {
		t.failure = err.Error()
		return
	}
	files = outside(files, a.req.Root, filepath.Dir(t.dir))
	sums, hash, err := bundle.HashInputs(ctx, a.req.Root, files)
	if err != nil {
		t.failure = err.Error()
		return
	}
	if hash != m.InputHash {
		t.problems = append(t.problems, staleInputs(m.Inputs, sums, a.pr.HeadSHA, a.run.Commit))
	}
	planned := m.TerraformFlavor
	if planned == "" { // a bundle from before tfgate recorded the flavour
		planned = a.bin.Flavor
	}
	if have := a.bin.Version; have != nil && m.TerraformVersion != "" && (have.String() != m.TerraformVersion || planned != a.bin.Flavor) {
		t.problems = append(t.problems, fmt.Sprintf("it was planned with %s %s, but this run has %s %s: apply the plan with the binary and version that made it (terraform.binary and terraform.version in %s), or plan again",
			planned, m.TerraformVersion, a.bin.Flavor, have, config.FileName))
	}
}

// staleInputs says which input files differ between the reviewed plan and the merge.
func staleInputs(planned, now map[string]string, reviewed, merged string) string {
	var diffs []string
	for f, sum := range now {
		switch old, ok := planned[f]; {
		case !ok:
			diffs = append(diffs, f+" (new)")
		case old != sum:
			diffs = append(diffs, f+" (changed)")
		}
	}
	for f := range planned {
		if _, ok := now[f]; !ok {
			diffs = append(diffs, f+" (removed)")
		}
	}
	sort.Strings(diffs)
	if len(diffs) > 5 {
		diffs = append(diffs[:5], fmt.Sprintf("and %d more", len(diffs)-5))
	}
	return fmt.Sprintf("the plan is stale: the merge %s changed its inputs beyond the reviewed commit %s (%s); plan it again on the merged code",
		short(merged), short(reviewed), strings.Join(diffs, ", "))
}

// judge evaluates the gate with the base commit's rules and records every verdict.
func (a *applier) judge(ctx context.Context) error {
	var owners []string // team membership is read only when an owner's approval matters
	for _, t := range a.targets {
		if t.bundle != nil && t.bundle.Policy != nil && (t.bundle.Policy.Denied || t.bundle.Policy.Error != "") {
			owners = a.base.Policies.Owners
		}
	}
	reviews, facts, err := CollectFacts(ctx, a.req.GitHub.API, a.repo, a.pr, owners)
	if err != nil {
		return fmt.Errorf("read the reviews of pull request #%d (nothing is applied without them): %w", a.pr.Number, err)
	}
	in := gate.Input{
		PR:      gate.PullRequest{Number: a.pr.Number, Author: a.pr.Author.Login, HeadSHA: a.pr.HeadSHA, Fork: a.pr.Fork},
		Reviews: reviews, Facts: facts, Freeze: a.freeze(),
	}
	for _, t := range a.targets {
		in.Projects = append(in.Projects, gateProject(a.base, t))
	}
	v := gate.Evaluate(in)
	a.run.Verdict = &report.Verdict{State: v.State(), Description: v.Description()}
	a.finishRefusals(&verdicts{v: v, reviews: reviews})
	return nil
}

// freeze is why applying is frozen: TFGATE_FREEZE, or apply.freeze in the configuration
// before the merge or in the merge itself; "" when it is not.
func (a *applier) freeze() string {
	switch {
	case a.req.Freeze != "":
		return a.req.Freeze + " (TFGATE_FREEZE)"
	case a.base.Apply.Freeze:
		return "apply.freeze is true in " + config.FileName + " on the default branch"
	case a.req.Config.Apply.Freeze:
		return "this merge sets apply.freeze: true in " + config.FileName
	}
	return ""
}

// gateProject is what the gate needs to know of one target. The rules are the base
// commit's: a project the pull request adds gets the base's top-level rules; a project
// either side puts in observe mode is observed.
func gateProject(base *config.Config, t target) gate.Project {
	rules := gate.Rules{MinApprovals: base.Approval.MinApprovals, DestroyMinApprovals: base.Approval.DestroyMinApprovals,
		Owners: base.Policies.Owners, Mode: config.ModeManaged}
	for _, bp := range base.Projects {
		if bp.Name == t.p.Name && bp.Workspace == t.p.Workspace {
			rules.Mode = bp.Mode
			if bp.Approval != nil {
				rules.MinApprovals, rules.DestroyMinApprovals = bp.Approval.MinApprovals, bp.Approval.DestroyMinApprovals
			}
		}
	}
	if t.p.Mode == config.ModeObserve {
		rules.Mode = config.ModeObserve
	}
	gp := gate.Project{Name: t.p.Name, Rules: rules}
	if m := t.bundle; m != nil {
		gp.HasBundle, gp.BundleCommit, gp.Applicable = true, m.Commit, m.Applicable
		gp.Destroys = m.Summary.Destroy > 0 || m.Summary.Replace > 0
		if pv := m.Policy; pv != nil {
			gp.PolicyDenied, gp.PolicyDenies, gp.PolicyError = pv.Denied, pv.Denies, pv.Error
		}
	}
	return gp
}

// verdicts is the gate's verdict with the reviews it judged, to date the approvals.
type verdicts struct {
	v       gate.Verdict
	reviews []gate.Review
}

// finishRefusals turns problems and verdicts into each target's result: failed (its
// bundle could not be opened), refused (with every reason), or allowed.
func (a *applier) finishRefusals(vs *verdicts) {
	for i := range a.targets {
		t := &a.targets[i]
		res := report.Project{Name: t.p.Name, Dir: t.p.Dir, Workspace: t.p.Workspace}
		g := &report.Gate{}
		reasons := append([]string(nil), t.problems...)
		pending := len(reasons) == 0
		if vs != nil {
			for _, pv := range vs.v.Projects {
				if pv.Name != t.p.Name {
					continue
				}
				for _, r := range pv.Reasons {
					reasons = append(reasons, r.Text)
					pending = pending && r.Pending
				}
				g.Approvals = approvals(pv.Approvers, vs.reviews, a.pr.HeadSHA)
				g.PolicyOverriddenBy = pv.PolicyOverriddenBy
			}
		}
		g.Reasons = reasons
		g.Allowed = len(reasons) == 0 && t.failure == ""
		g.Pending = !g.Allowed && pending && len(reasons) > 0
		res.Gate = g
		if m := t.bundle; m != nil {
			res.Apply = &report.Apply{PlanSHA256: m.PlanSHA256, InputHash: m.InputHash, TerraformVersion: m.TerraformVersion, Summary: m.Summary}
		}
		switch {
		case t.failure != "":
			res.Status, res.Error = report.StatusFailed, a.req.Masker.String(t.failure)
		case len(reasons) > 0:
			// The reasons are the gate's (Gate.Reasons), masked: terraform never wrote them,
			// but a path or a policy message can quote anything.
			res.Status = report.StatusRefused
			for i, r := range g.Reasons {
				g.Reasons[i] = a.req.Masker.String(r)
			}
		default:
			res.Status = report.StatusAllowed
		}
		t.result = res
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
func refusedNames(r report.Run) string {
	var names []string
	for _, p := range r.Projects {
		if p.Status == report.StatusRefused {
			names = append(names, p.Name)
		}
	}
	return strings.Join(names, ", ")
}

// hasPolicies reports whether the configuration cfg at commit rev has policy files.
func hasPolicies(ctx context.Context, root string, cfg *config.Config, rev string) (bool, error) {
	candidates := cfg.Policies.Paths
	if len(candidates) == 0 {
		candidates = []string{defaultPolicyDir}
	}
	fsys, err := ci.Git{Dir: root}.TreeFS(ctx, rev, candidates)
	if err != nil {
		return false, err
	}
	return len(policyPaths(cfg, fsys)) > 0, nil
}
