package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/tfgate/tfgate/internal/cost"
	"github.com/tfgate/tfgate/internal/git"
	"github.com/tfgate/tfgate/internal/notify"
	"github.com/tfgate/tfgate/internal/report"
	"github.com/tfgate/tfgate/internal/stage"
	"github.com/tfgate/tfgate/internal/terraform"
)

// PlanRequest is everything `tfgate plan` was asked to do.
type PlanRequest struct {
	stage.Env
	Names []string // explicit projects; none and !All = the changed projects
	All   bool
	// Changed with Names: plan those of the changed projects as the changed run would (its
	// base, notes and changed files): a matrix job's share of one review (see Publish).
	Changed bool
	Base    string // ref to compare with; "" = the remote default branch

	PoliciesFrom string // "", PoliciesFromBase or PoliciesFromWorktree (see PolicySource)
	InCI         bool   // running in CI: policies always come from the base

	OutDir  string // bundles; relative to the working directory; "" = none
	PlanKey string // TFGATE_PLAN_KEY: encrypt the bundles with it
	PR      int    // the pull request planned, recorded in bundles
	// CostFile is an Infracost JSON file (--cost) that prices the projects instead of the
	// policies' price catalogue (docs/cost.md); relative to the working directory.
	CostFile string
	Fork     bool   // it comes from a fork: no bundle is applicable
	Author   string // the pull request's author, for policies (data.tfgate.author)

	// GitHub is set in GitHub Actions: the event decides the base, the fork rule applies,
	// and the run is published there (see GitHubRun).
	GitHub *GitHubRun

	Print io.Writer // print() output of policies; nil drops it
	// Fresh (--fresh): reuse no plan of the pull request's previous push (plan_reuse.go).
	Fresh bool
}

// RunPlan is `tfgate plan`: select the projects, load the policies that judge them, find
// terraform, plan every project and return the whole run — and in GitHub Actions publish it
// (a pending status first; then the comment, status, summary, outputs and annotations, or,
// when the run stopped before planning, that it stopped). A failed project is in the run,
// not an error; the error is for what stops the run, for an interrupted run (whose results
// are still returned), and for what could not be published.
func RunPlan(ctx context.Context, req PlanRequest) (report.Run, error) {
	req.Defaults()
	if req.GitHub == nil {
		return runPlan(ctx, req)
	}
	if req.GitHub.Event.Name == "workflow_dispatch" && req.GitHub.Event.PRNumber > 0 {
		// A re-plan of a pull request (tfgate notify-stale): planned as its own event would be.
		ev, err := dispatchedPull(ctx, req.GitHub, req.Root)
		if err != nil {
			return report.Run{Kind: report.KindPlan}, err
		}
		req.GitHub.Event = ev
	}
	ev := req.GitHub.Event
	req.PR, req.Fork = ev.PRNumber, ev.Fork
	if ev.ForPullRequest() {
		req.Author = ev.Author
	}
	if req.Base == "" && ev.BaseSHA != "" && (ev.ForPullRequest() || ev.Name == "merge_group") {
		req.Base = ev.BaseSHA    // what the pull request is compared with, not origin/HEAD
		if ev.ForPullRequest() { // GitHub's test merge: what it merged the head into (base.sha lags)
			if m, ok, err := (git.Git{Dir: req.Root}).TestMergeBase(ctx, ev.HeadSHA, req.Base); err != nil {
				return report.Run{Kind: report.KindPlan}, err
			} else if ok {
				req.Base = m
			}
		}
	}
	pub := notify.StartPlan(ctx, req.GitHub, req.Root, req.Warn, req.TfgateVersion)
	err := guardPlan(ctx, req)
	if err == nil && ev.Name == "merge_group" && req.Base == ev.BaseSHA && req.GitHub.API != nil {
		// The group's commit lands with the queue's entries ahead of it: plan all they
		// change, so that its bundles cover what lands.
		var base string
		if base, err = QueuePlanBase(ctx, req.GitHub.API, req.Root, ev); err == nil {
			req.Base = base
		} else {
			err = fmt.Errorf("find the merge queue group's base: %w", err)
		}
	}
	run := report.Run{Kind: report.KindPlan}
	if err == nil {
		run, err = runPlan(ctx, req)
	}
	var stopped error
	var waitErr *QueueWaitError
	if errors.As(err, &waitErr) {
		stopped = waitErr // its own words on the status: the queue retries
	} else if err != nil && run.Projects == nil {
		stopped = errors.New(req.Masker.String(err.Error()))
	}
	if perr := pub.Finish(ctx, run, stopped); perr != nil && err == nil {
		err = perr
	}
	return run, err
}

func runPlan(ctx context.Context, req PlanRequest) (run report.Run, err error) {
	run = report.Run{Kind: report.KindPlan}
	if err := req.check(); err != nil {
		return run, err
	}
	infracost, err := readInfracost(req)
	if err != nil {
		return run, err
	}
	if req.OutDir != "" {
		out, oerr := stage.OutDir(req.OutDir)
		if oerr != nil {
			return run, oerr
		}
		req.OutDir = out
		defer func() { err = writeResult(req, run, err) }() // for tfgate publish
	}
	// What does not depend on the selection runs beside it: finding terraform (a version
	// probe, when the binary's answer is not cached) and, for bundles, the commit facts.
	// A run that ends before planning (nothing changed, a policy that does not compile)
	// stops them and never reports their errors.
	tf := background(ctx, func(ctx context.Context) (terraform.Binary, error) {
		return stage.ResolveTerraform(ctx, req.Config, req.Terraform)
	})
	defer tf.Stop()
	prev := startPrevious(ctx, req) // plan_reuse.go: the previous push's plans
	defer closePrevious(prev)
	checkout := git.Git{Dir: req.Root}
	var head *future[headFacts]
	if req.OutDir != "" {
		head = background(ctx, func(ctx context.Context) (headFacts, error) { return readHead(ctx, checkout) })
		defer head.Stop()
	}
	sel, err := planSelection(ctx, req, &run)
	if err != nil || len(sel.Projects) == 0 {
		return run, err
	}
	shared := background(ctx, func(ctx context.Context) (map[string]string, error) { return sharedFiles(ctx, req, sel) })
	defer shared.Stop() // the shared files' sums (HEAD's files listed, then read) beside the policies
	pols, err := selectionPolicies(ctx, req, sel)
	if err != nil {
		return run, err
	}
	run.Policies, run.PolicyNotes = pols.Source, pols.Notes
	run.Cost = stage.CostSource(infracost, pols.Prices)
	bin, err := tf.Wait()
	if err != nil {
		return run, err
	}
	req.Log.Info("terraform", "path", bin.Path, "version", bin.Version, "flavor", bin.Flavor)
	rec, err := planRecord(ctx, req, checkout, head, shared)
	if err != nil {
		return run, err
	}
	planned, err := planSelected(ctx, req, sel, pols, bin, rec, prev, infracost)
	run.Projects = planned.Projects
	run.Notes = append(run.Notes, planned.Notes...)
	return run, err
}

// planSelected plans sel's projects (reusing the previous push's plans where nothing they
// depend on changed: plan_reuse_run.go), knowing the default branch's merges not yet
// applied (plan_unapplied.go), whose note comes first.
func planSelected(ctx context.Context, req PlanRequest, sel stage.Selection, pols stage.Policies, bin terraform.Binary,
	rec bundleRecord, prev *future[*reusePlans], infracost *cost.Infracost) (report.Run, error) {
	unapplied := planUnapplied(ctx, req, sel.Projects)
	planned, err := planProjects(ctx, rec, sel, stage.PlanOptions{
		Env: req.Env, Projects: sel.Projects, Binary: bin, PluginCacheDir: stage.PluginCacheDir(req.Config, req.Terraform),
		OutDir: req.OutDir, PlanKey: req.PlanKey, Commit: rec.commit, PlannedCommit: rec.planned, Dirty: rec.dirty, PR: req.PR, Fork: req.Fork,
		Policies: pols, ChangedFiles: sel.Files, SharedSums: rec.shared, Author: req.Author, Infracost: infracost,
		Unapplied: unapplied.byProject, UnappliedUnknown: unapplied.unknown,
	}, prev, reuseRun{bin: bin, pols: pols, unapplied: unapplied})
	if unapplied.note != "" {
		planned.Notes = append([]string{unapplied.note}, planned.Notes...)
	}
	return planned, err
}

// planSelection selects the projects to plan, records on run what the selection found
// (the base, the notes, the comment's graph of why), and in a merge queue waits for the
// group's base to be applied (queue_wait.go).
func planSelection(ctx context.Context, req PlanRequest, run *report.Run) (stage.Selection, error) {
	sel, err := stage.Select(ctx, stage.SelectOptions{Root: req.Root, Config: req.Config, ConfigFile: req.ConfigFile, Names: req.Names,
		All: req.All, Changed: req.Changed || (!req.All && len(req.Names) == 0), Base: req.Base})
	if err != nil {
		return sel, err
	}
	run.Base, run.MergeBase, run.Notes = sel.Base, git.ShortSHA(sel.MergeBase), sel.Notes
	run.Scope = sel.Scope() // the comment's graph: why these projects
	if len(sel.Projects) > 0 && req.GitHub != nil && req.GitHub.Event.Name == "merge_group" {
		err = waitQueueBase(ctx, req, req.Base, sel.Projects)
	}
	return sel, err
}

// selectionPolicies are the policies sel's projects are judged by: the base's (the
// selection's, else the request's), knowing which projects moved from where.
func selectionPolicies(ctx context.Context, req PlanRequest, sel stage.Selection) (stage.Policies, error) {
	base := sel.Base
	if base == "" {
		base = req.Base
	}
	pols, err := loadRunPolicies(ctx, req, base, sel.Files)
	if err != nil {
		return pols, err
	}
	return pols.WithMoved(sel.MovedFrom), nil
}

// planRecord is what the bundles record of the commit (only with --out: without it no git
// is needed) and the shared files the trees terraform runs in hold (stage/scope.go),
// bundles or not.
func planRecord(ctx context.Context, req PlanRequest, checkout git.Git, head *future[headFacts], shared *future[map[string]string]) (bundleRecord, error) {
	rec := bundleRecord{}
	var err error
	if req.OutDir != "" {
		if rec, err = readBundleRecord(ctx, req, checkout, head, shared); err != nil {
			return rec, err
		}
	}
	if rec.shared == nil {
		rec.shared, err = shared.Wait()
	}
	return rec, err
}

// check refuses a request whose options contradict each other.
func (req *PlanRequest) check() error {
	switch {
	case req.Parallel < 0:
		return stage.Optionf("{Parallel} %d: want a positive number (0 = number of CPUs)", req.Parallel)
	case req.All && len(req.Names) > 0:
		return stage.Optionf("{All} and project names are exclusive: pass one or the other")
	case req.All && req.Changed:
		return stage.Optionf("{All} and {Changed} are exclusive: pass one or the other")
	}
	return nil
}

// bundleRecord is what the bundles record of the checkout beside the plans: the commit
// (dirty: the working tree differs from it), the commit the plan stands for when it is not
// the one checked out (reviewedCommit), and the sums of the files outside every project.
type bundleRecord struct {
	commit, planned string
	dirty           bool
	shared          map[string]string
}

// readBundleRecord gathers the bundles' record, warning of a dirty tree and of plan files written
// in clear text in CI.
func readBundleRecord(ctx context.Context, req PlanRequest, checkout git.Git, head *future[headFacts], shared *future[map[string]string]) (bundleRecord, error) {
	facts, err := head.Wait()
	if err != nil {
		return bundleRecord{}, err
	}
	rec := bundleRecord{commit: facts.commit, dirty: facts.dirty}
	if rec.dirty {
		req.Warn(fmt.Sprintf("the working tree has uncommitted changes: the bundles record commit %s but plan more than it (manifest \"dirty\": true)", git.ShortSHA(rec.commit)))
	}
	if rec.commit, rec.planned, err = reviewedCommit(ctx, checkout, req, rec.commit); err != nil {
		return bundleRecord{}, err
	}
	if req.PlanKey == "" && req.InCI {
		where := req.OutDir
		if req.GitHub != nil && req.GitHub.ArtifactName != "" {
			where += " (uploaded as the workflow artifact " + req.GitHub.ArtifactName + ", readable by everyone who can read the repository's Actions)"
		}
		req.Warn("PLAN FILES ARE NOT ENCRYPTED: a saved plan holds every value of the plan in clear text, secrets included, and the bundles in " + where +
			" carry them. Set TFGATE_PLAN_KEY (a secret passphrase, the same for plan and apply) to encrypt them with age")
	}
	rec.shared, err = shared.Wait()
	return rec, err
}

// sharedFiles hashes the files outside every project that the review covers (under the
// base commit's ignore:).
func sharedFiles(ctx context.Context, req PlanRequest, sel stage.Selection) (map[string]string, error) {
	rules := req.Config
	if sel.BaseView != nil {
		rules = sel.BaseView.Config
	}
	return stage.SharedSums(ctx, req.Root, sel.All, rules, req.OutDir)
}

// headFacts are what bundles record of the checkout.
type headFacts struct {
	commit string
	dirty  bool
}

func readHead(ctx context.Context, checkout git.Git) (headFacts, error) {
	commit, err := checkout.Head(ctx)
	if err != nil {
		// A bundle exists to prove which commit was planned: without one it is worthless.
		return headFacts{}, stage.Optionf("{Out}: plan bundles record the commit they plan: %w", err)
	}
	dirty, err := checkout.Dirty(ctx)
	return headFacts{commit: commit, dirty: dirty}, err
}

// loadRunPolicies applies PolicySource and loads the policies once for the run.
func loadRunPolicies(ctx context.Context, req PlanRequest, base string, changed []string) (stage.Policies, error) {
	from, needBase, err := stage.PolicySource(req.PoliciesFrom, base, req.InCI)
	if err != nil {
		return stage.Policies{}, err
	}
	if needBase {
		if base, err = (git.Git{Dir: req.Root}).DefaultBase(ctx); err != nil {
			return stage.Policies{}, err
		}
	}
	pols, err := stage.LoadPolicies(ctx, stage.PolicyOptions{
		Root: req.Root, Config: req.Config, ConfigFile: req.ConfigFile, From: from, BaseRev: base, Changed: changed, Print: req.Print,
	})
	if err == nil && pols.Engine != nil {
		req.Log.Info("policies", "source", pols.Source, "paths", pols.Paths)
	}
	return pols, err
}

// reviewedCommit is the commit a pull request's bundles record: the one reviewers approve,
// its head. A checkout of the head records it as is; GitHub's test merge of the head into
// the base (actions/checkout's default on pull_request: HEAD's second parent is the head)
// records the head, and the merge as the commit planned. Any other checkout records HEAD
// and warns: its bundles will not match the pull request's head, and apply refuses them.
func reviewedCommit(ctx context.Context, checkout git.Git, req PlanRequest, head string) (commit, planned string, err error) {
	if req.GitHub == nil || !req.GitHub.Event.ForPullRequest() || req.GitHub.Event.HeadSHA == "" || head == req.GitHub.Event.HeadSHA {
		return head, "", nil
	}
	want := req.GitHub.Event.HeadSHA
	if second, err := checkout.Commit(ctx, head+"^2"); err == nil && second == want {
		return want, head, nil
	}
	req.Warn(fmt.Sprintf("the checked-out commit %s is neither the pull request's head %s nor GitHub's merge of it: its bundles record %s, which apply will not take for the reviewed plan",
		git.ShortSHA(head), git.ShortSHA(want), git.ShortSHA(head)))
	return head, "", nil
}
