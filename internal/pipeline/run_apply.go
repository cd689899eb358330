package pipeline

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tfgate/tfgate/internal/bundle"
	"github.com/tfgate/tfgate/internal/english"
	"github.com/tfgate/tfgate/internal/gate"
	"github.com/tfgate/tfgate/internal/git"
	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/project"
	"github.com/tfgate/tfgate/internal/report"
	"github.com/tfgate/tfgate/internal/stage"
	"github.com/tfgate/tfgate/internal/terraform"
)

// ApplyRequest is everything `tfgate apply` was asked to do.
//
// Env's Config is the merge commit's (which projects exist); its ConfigFile is read again
// at the base commit for the rules.
type ApplyRequest struct {
	stage.Env
	Names   []string     // apply only these of the merged pull request's projects
	PR      int          // --pr: the merged pull request to apply (workflow_dispatch); 0 = find it from the commit
	Plans   bundle.Store // where the reviewed bundles are
	PlanKey string       // TFGATE_PLAN_KEY: opens encrypted bundles
	DryRun  bool
	Freeze  string // TFGATE_FREEZE: a reason refuses every apply
	// GitHub is required: the pull request, its reviews and the reviewers' permissions come
	// from there. Its API may be read-only for a dry run.
	GitHub   *GitHubRun
	AuditLog string // append one JSON line per project here; "" = none
	// CatchUp is how many commits of the default branch a push's run looks back for the
	// last merge tfgate handled, applying the merges after it first (apply_catchup.go);
	// 0 = none. CaughtUp, when set, gets each caught-up merge's run as it ends.
	CatchUp  int
	CaughtUp func(report.Run)
	// UnsavedStateDir is where apply keeps a state terraform applied but could not save
	// (errored.tfstate), outside the checkout; "" = tfgate-unsaved-state in the temporary
	// directory. StatePushWait is how long it first tries to push it (0 = the default).
	UnsavedStateDir string
	StatePushWait   time.Duration
}

// applying counts the apply runs between their first apply and their published audit.
var applying atomic.Int32

// Applying reports how many apply runs of this process are applying or publishing what they
// applied: a first signal then cancels and waits instead of exiting at once.
func Applying() int { return int(applying.Load()) }

// publishTimeout bounds publishing the audit after a cancelled run, from the cancellation.
const publishTimeout = 30 * time.Second

// ErrGateRefused is returned (wrapped) when the gate refused at least one project: exit 4.
var ErrGateRefused = errors.New("the approval gate refused")

// RunApply is `tfgate apply`: find the merged pull request of the commit checked out,
// fetch the bundles reviewed on its head, verify each against the merge commit, evaluate
// the gate with the base commit's rules and apply the saved plans that pass, in depends_on
// order; then publish the audit (comment, status, job summary, audit log). Refused and
// failed projects are in the run; the error is for what stopped the run, for an
// interrupted run, and wraps ErrGateRefused when anything was refused.
func RunApply(ctx context.Context, req ApplyRequest) (report.Run, error) {
	req.Defaults()
	g := gatherer{Env: req.Env, plans: req.Plans, frozen: req.Freeze, gh: req.GitHub}
	a := &review{runFacts: runFacts{gatherer: g}, req: req, run: report.Run{Kind: report.KindApply, DryRun: req.DryRun}}
	defer a.cleanup()     // decrypted (or fetched clear) plan files hold secrets in clear text
	err := a.catchUp(ctx) // earlier merges no run applied, first (apply_catchup.go)
	if err == nil {
		err = a.prepare(ctx)
	}
	if err == nil {
		// From the first apply until the audit is out, a signal must not end the process
		// at once (between two terraform processes none runs): what was applied must be
		// published. See Applying.
		applying.Add(1)
		defer applying.Add(-1)
		err = a.apply(ctx)
	}
	// The audit is published even when the run was cancelled (SIGTERM): what was applied
	// must be on record. A cancelled run gets a little time of its own from the
	// cancellation; one that was not is bounded by the publishing phase
	// (TFGATE_PUBLISH_TIMEOUT), like every run's: a shorter cap here left neither the
	// comment nor the status after one stalled request.
	pctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	stopGrace := context.AfterFunc(ctx, func() { time.AfterFunc(publishTimeout, cancel) })
	defer stopGrace()
	a.noteEarlier()
	if perr := a.publish(pctx, err); perr != nil {
		err = errors.Join(err, perr)
	}
	if err == nil && a.run.Count(report.StatusRefused) > 0 {
		err = fmt.Errorf("%w %s", ErrGateRefused, refusedNames(a.run))
	}
	return a.run, a.earlierErr(err)
}

// review is one gate or apply run: the facts its gathering steps found (runFacts, each
// project's in its projectCase), then what the run does with them — the gate's verdicts
// and results (run, each target's result), and apply's terraform and records. The steps
// with a *runFacts receiver only gather: all of the gate's (RunGate judges on a review
// built from their facts). Apply's own gathering steps (prepare, checkout, findPR,
// readRules, selectTargets, loadBundles, verify, derive) are on *review still: they read
// apply's request and write its report (the commit, the notes) as they go.
type review struct {
	runFacts
	req ApplyRequest // apply's alone (RunGate leaves it empty)
	run report.Run   // the results, the verdict and the notes, as the steps decide them
	// bin is the terraform that applies and runOpts how it runs (see apply_derive.go):
	// apply's alone.
	bin     terraform.Binary
	runOpts *stage.PlanOptions
	// scratch is the run's temporary directory: the fetched bundles, the opened ones, the
	// re-plans.
	scratch string
	// earlier are the runs of the merges caught up before this one (apply_catchup.go).
	earlier []earlierRun
	// identity is the login tfgate writes as, learnt once (apply_issues.go).
	identity string
}

// prepare finds the pull request, the rules, the changed projects and their bundles,
// verifies every bundle and evaluates the gate. What it refuses is in a.run.
func (a *review) prepare(ctx context.Context) error {
	checkout, head, err := a.checkout(ctx)
	if err != nil {
		return err
	}
	pr, found, err := a.findPR(ctx, head)
	if err != nil {
		return err
	}
	if found {
		a.pr = pr
		a.run.PR, a.run.Reviewed = pr.Number, pr.HeadSHA
		if a.req.PR > 0 && pr.MergeCommitSHA != head {
			return fmt.Errorf("the checked-out commit %s is not pull request #%d's merge commit %s: apply verifies the reviewed plans against the merge; check out %s (actions/checkout with ref: %s)",
				git.ShortSHA(head), pr.Number, git.ShortSHA(pr.MergeCommitSHA), git.ShortSHA(pr.MergeCommitSHA), pr.MergeCommitSHA)
		}
	}
	baseRev, err := a.readRules(ctx, checkout, head, found)
	if err != nil {
		return err
	}
	sel, err := a.selectTargets(ctx, baseRev, head)
	if err != nil || len(a.targets) == 0 {
		return err
	}
	if ev := a.gh.Event; found && a.req.PR == 0 && ev.Name == "push" && ev.BaseSHA != "" {
		// A push may land several pull requests (a merge queue's group): find them all.
		if err := a.pushGroup(ctx, checkout, baseRev, head); err != nil {
			return err
		}
		if err := a.attributeGroup(ctx, sel.All); err != nil {
			return err
		}
		a.run.Notes = append(a.run.Notes, a.group.notes()...)
	}
	if !found {
		a.refuseAll(gate.NotMerged(head, pr.Number))
		return nil
	}
	// What the merge changed that nothing plans (files outside every project, dropped base
	// projects) is judged too, as the gate judged it: apply must not rest on tfgate/gate
	// being a required check. See foldReviews.
	a.targets = append(a.targets, reviewTargets(sel)...)
	return a.verifyAndJudge(ctx, sel)
}

// checkout checks what apply needs (GitHub, the bundles) and the commit checked out: clean,
// and the pushed one on a push.
func (a *review) checkout(ctx context.Context) (git.Git, string, error) {
	checkout := git.Git{Dir: a.Root}
	if a.gh == nil || a.gh.API == nil {
		return checkout, "", stage.Optionf("tfgate apply checks the approval gate on GitHub (the pull request, its reviews, the reviewers' permissions): run it in GitHub Actions with GITHUB_TOKEN, or pass {Publish} github")
	}
	if a.plans == nil {
		return checkout, "", stage.Optionf("tfgate apply needs the reviewed plan bundles: {Plans} DIR (what `tfgate plan --out DIR` wrote) or {Plans} github (the workflow's artifacts)")
	}
	ev := a.gh.Event
	a.repo = github.Repo{Owner: ev.Owner, Name: ev.Repo}
	head, err := checkout.Head(ctx)
	if err != nil {
		return checkout, "", err
	}
	a.run.Commit = head
	if dirty, err := checkout.Uncommitted(ctx); err != nil {
		return checkout, "", err
	} else if len(dirty) > 0 {
		return checkout, "", fmt.Errorf("the working tree has uncommitted changes (%s): apply verifies the reviewed plans against commit %s exactly; check out a clean commit", english.ClipList(dirty, 3), git.ShortSHA(head))
	}
	if ev.Name == "push" && ev.HeadSHA != "" && ev.HeadSHA != head {
		return checkout, "", fmt.Errorf("the checked out commit %s is not the pushed commit %s: check out the push (actions/checkout does by default)", git.ShortSHA(head), git.ShortSHA(ev.HeadSHA))
	}
	return checkout, head, nil
}

// readRules reads the rules from every commit they may come from (baseRevs) and whether
// any has policies; it returns the first, which what the merge changed is compared with.
func (a *review) readRules(ctx context.Context, checkout git.Git, head string, found bool) (string, error) {
	revs, err := a.baseRevs(ctx, checkout, head, found)
	if err != nil {
		return "", err
	}
	a.ruleRevs = revs
	for i, rev := range revs {
		_, cfg, source, err := stage.BaseConfig(ctx, a.Root, a.ConfigFile, rev)
		if err != nil {
			return "", fmt.Errorf("read the rules (the configuration before the merge): %w", err)
		}
		a.req.Log.Info("apply rules", "source", source)
		if i == 0 {
			a.base = cfg
		} else {
			a.extraRules = append(a.extraRules, cfg)
		}
		has, err := hasPolicies(ctx, a.Root, cfg, rev)
		if err != nil {
			return "", fmt.Errorf("read the policies before the merge: %w", err)
		}
		a.policies = a.policies || has
	}
	if err := a.readOwners(ctx, revs); err != nil {
		return "", err
	}
	return revs[0], nil
}

// selectTargets selects the projects the merge changed since baseRev (those named, when
// projects are named) as the run's targets; none when it changes none.
func (a *review) selectTargets(ctx context.Context, baseRev, head string) (stage.Selection, error) {
	sel, err := stage.Select(ctx, stage.SelectOptions{Root: a.Root, Config: a.Config, ConfigFile: a.ConfigFile, Changed: true, Base: baseRev})
	if err != nil {
		return sel, err
	}
	a.run.Base, a.run.MergeBase, a.run.Notes = "", git.ShortSHA(sel.MergeBase), sel.Notes
	a.changed, a.moved = sel.Files, sel.MovedFrom
	projects := sel.Projects
	if len(a.req.Names) > 0 {
		if projects, err = pick(projects, a.req.Names); err != nil {
			return sel, err
		}
	}
	if len(projects) == 0 {
		a.run.Notes = append(a.run.Notes, fmt.Sprintf("The merge %s changes no project: nothing to apply.", git.ShortSHA(head)))
		return sel, nil
	}
	for _, p := range projects {
		a.targets = append(a.targets, target{projectCase: projectCase{p: p, aliases: stateAliases(a.Root, sel.BaseView, p)}})
	}
	if len(a.req.Names) > 0 {
		a.leftOut(sel.Projects)
	}
	return sel, nil
}

// verifyAndJudge fetches the targets' bundles, verifies each against the merge, derives
// what its plan file does and evaluates the gate.
func (a *review) verifyAndJudge(ctx context.Context, sel stage.Selection) error {
	if err := a.loadBundles(ctx); err != nil {
		return err
	}
	var err error
	if a.shared, err = stage.SharedSums(ctx, a.Root, sel.All, a.base, a.scratch); err != nil {
		return err
	}
	if a.bin, err = stage.ResolveTerraform(ctx, a.Config, a.req.Terraform); err != nil {
		return err
	}
	for i := range a.targets {
		a.verify(ctx, &a.targets[i])
	}
	if err := a.derive(ctx); err != nil {
		return err
	}
	if err := a.judge(ctx); err != nil {
		return err
	}
	a.foldReviews()
	return nil
}

// pick keeps the projects named (by name or dir); a name that is not among them is an error.
func pick(projects []project.Project, names []string) ([]project.Project, error) {
	var out []project.Project
	for _, n := range names {
		found := false
		for _, p := range projects { // a dir names each of its workspaces
			if p.Name != n && p.Dir != n {
				continue
			}
			found = true
			if !slices.ContainsFunc(out, func(o project.Project) bool { return o.Name == p.Name && o.Workspace == p.Workspace }) {
				out = append(out, p)
			}
		}
		if !found {
			return nil, fmt.Errorf("project %q is not among the projects the merge changed", n)
		}
	}
	return out, nil
}

func (a *review) refuseAll(why gate.Reason) {
	for i := range a.targets {
		a.targets[i].problems = append(a.targets[i].problems, why)
	}
	a.finishRefusals(nil)
}

// cleanup removes the run's scratch directory: fetched bundles, decrypted plan files.
func (a *review) cleanup() {
	if a.scratch != "" {
		os.RemoveAll(a.scratch)
		a.scratch = ""
	}
}

// leftOut handles projects the merge changed that the names leave out of the run: a named
// project depending on one is refused (its foundation would not be applied first), and the
// run says which were left out.
func (a *review) leftOut(changed []project.Project) {
	in := map[string]bool{}
	for _, t := range a.targets {
		in[t.p.Name] = true
	}
	var out []string
	outSet := map[string]bool{}
	for _, p := range changed {
		if !in[p.Name] && !outSet[p.Name] {
			out, outSet[p.Name] = append(out, p.Name), true
		}
	}
	if len(out) == 0 {
		return
	}
	for i := range a.targets {
		a.targets[i].problems = append(a.targets[i].problems, gate.LeftOut(a.targets[i].p.DependsOn, outSet)...)
	}
	a.run.Notes = append(a.run.Notes, fmt.Sprintf("Not in this run (named projects only), though the merge changed them: %s.", strings.Join(out, ", ")))
}
