package pipeline

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tfgate/tfgate/internal/bundle"
	"github.com/tfgate/tfgate/internal/gate"
	"github.com/tfgate/tfgate/internal/git"
	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/notify"
	"github.com/tfgate/tfgate/internal/report"
	"github.com/tfgate/tfgate/internal/stage"
)

// GateRequest is everything `tfgate gate` was asked to do.
type GateRequest struct {
	stage.Env
	PR     int          // --pr; 0 = the event's pull request
	Plans  bundle.Store // where the plan run left its bundles
	Freeze string       // TFGATE_FREEZE
	GitHub *GitHubRun   // required
	// Publish sets the status and the gate line of the sticky comment (else print only).
	Publish bool
}

// RunGate is `tfgate gate`: evaluate the approval gate of a pull request's current head —
// its bundles, its reviews, the base commit's rules — and publish the verdict as the
// commit status tfgate/gate and a line in the sticky plan comment, so that branch
// protection can require it and reviewers see what is missing before they merge. The
// error wraps ErrGateRefused when the gate does not (yet) allow applying.
func RunGate(ctx context.Context, req GateRequest) (report.Run, error) {
	req.Defaults()
	run := report.Run{Kind: report.KindGate}
	pr, err := gatePull(ctx, req)
	if err != nil {
		return run, err
	}
	run.PR, run.Reviewed = pr.Number, pr.HeadSHA
	gh := req.GitHub
	g := gatherer{Env: req.Env, plans: req.Plans, frozen: req.Freeze, gh: gh}
	f := runFacts{gatherer: g, repo: github.Repo{Owner: gh.Event.Owner, Name: gh.Event.Repo}, pr: pr}
	pub := &notify.Gate{GitHub: gh, Repo: f.repo, PR: pr.Number, SHA: pr.HeadSHA}
	if gh.Event.Name == "merge_group" && gh.Event.HeadSHA != "" {
		// The queue's commit is what lands: its plan is judged, and its status is the
		// queue's required check (on the group's commit); approvals are still the pull
		// request's.
		f.queue = gh.Event.HeadSHA
		run.Commit, pub.SHA = f.queue, f.queue
	}
	err = f.gateTargets(ctx)  // the facts, gathered
	a := &review{runFacts: f} // judged: the verdict, each project's result
	if err == nil {
		err = a.judge(ctx)
	}
	if err != nil {
		if req.Publish {
			return run, pub.PublishError(ctx, run, err, a.queue == "", req.Warn)
		}
		return run, err
	}
	run = a.gateRun(run)
	if req.Publish {
		// (A merge queue's group has no line: the comment is about the head's plan.)
		if perr := pub.Publish(ctx, run, a.queue == "", req.Warn); perr != nil {
			return run, perr
		}
	}
	if run.Verdict.State != report.GateAllowed {
		return run, fmt.Errorf("%w: %s", ErrGateRefused, run.Verdict.Description)
	}
	return run, nil
}

// gatePull reads the pull request the gate judges: --pr, else the event's. When it cannot
// be read and the event names the commit, the error is published there: an earlier
// verdict must not stand.
func gatePull(ctx context.Context, req GateRequest) (github.PullRequest, error) {
	if req.GitHub == nil || req.GitHub.API == nil {
		return github.PullRequest{}, stage.Optionf("tfgate gate reads the pull request's reviews on GitHub: run it in GitHub Actions with GITHUB_TOKEN, or pass {Publish} github")
	}
	gh := req.GitHub
	repo := github.Repo{Owner: gh.Event.Owner, Name: gh.Event.Repo}
	n := req.PR
	if n == 0 {
		n = gh.Event.PRNumber
	}
	if n <= 0 {
		return github.PullRequest{}, stage.Optionf("tfgate gate judges a pull request: run it on pull_request or pull_request_review events, or pass {PR} N (event %q has none)", gh.Event.Name)
	}
	pr, err := gh.API.GetPull(ctx, repo, n)
	if err != nil {
		err = fmt.Errorf("read pull request #%d: %w", n, err)
		if req.Publish && gh.Event.HeadSHA != "" && (n == gh.Event.PRNumber || gh.Event.Name == "merge_group") {
			pub := &notify.Gate{GitHub: gh, Repo: repo, PR: n, SHA: gh.Event.HeadSHA}
			return pr, pub.PublishError(ctx, report.Run{Kind: report.KindGate}, err, gh.Event.Name != "merge_group", req.Warn)
		}
		return pr, err
	}
	if gh.Event.Name == "workflow_dispatch" && gh.Event.PRNumber == n {
		// notify-stale's re-plan: the test merge checked out is on the current default
		// branch, which GitHub's base.sha of the pull request may not be yet.
		ev, err := dispatchedPull(ctx, gh, req.Root)
		if err != nil {
			return pr, err
		}
		pr.BaseSHA = ev.BaseSHA
	}
	return pr, nil
}

// gateRun is run with what the gate found: every project's result (an allowed one without
// an error), the verdict (judge's; nothing to apply when nothing changed), the notes.
func (a *review) gateRun(run report.Run) report.Run {
	for _, t := range a.targets {
		res := t.result
		if res.Status == report.StatusAllowed {
			res.Error = ""
		}
		run.Projects = append(run.Projects, res)
	}
	run.Verdict = a.run.Verdict
	run.Notes = append(run.Notes, a.group.notes()...) // a merge queue group's pull requests
	if len(a.targets) == 0 {
		v := gate.NothingChanged(a.pr.HeadSHA)
		run.Verdict = &v
	}
	v := gate.Reconcile(*run.Verdict, run.Count(report.StatusAllowed) == len(run.Projects), refused(run))
	run.Verdict = &v
	return run
}

// gateTargets finds the projects the pull request changes and the bundles planned on its
// head; the rules come from its base commit.
func (a *runFacts) gateTargets(ctx context.Context) error {
	checkout := git.Git{Dir: a.Root}
	baseRev, err := a.judgedBase(ctx, checkout)
	if err != nil {
		return err
	}
	_, base, _, err := stage.BaseConfig(ctx, a.Root, a.ConfigFile, baseRev)
	if err != nil {
		return fmt.Errorf("read the rules at the base commit: %w", err)
	}
	a.base = base
	if err := a.readOwners(ctx, []string{baseRev}); err != nil {
		return err
	}
	if a.queue == "" {
		if err := a.gateCheckout(ctx, checkout); err != nil {
			return err
		}
	} else if _, err := checkout.Head(ctx); err != nil {
		return err
	}
	sel, err := stage.Select(ctx, stage.SelectOptions{Root: a.Root, Config: a.Config, ConfigFile: a.ConfigFile, Changed: true, Base: baseRev})
	if err != nil {
		return err
	}
	for _, p := range sel.Projects {
		a.targets = append(a.targets, target{projectCase: projectCase{p: p, aliases: stateAliases(a.Root, sel.BaseView, p)}})
	}
	a.targets = append(a.targets, reviewTargets(sel)...) // judged by every pull request of a merge group
	if err := a.attributeGroup(ctx, sel.All); err != nil {
		return err
	}
	if len(a.targets) == 0 {
		return nil
	}
	scratch, err := os.MkdirTemp("", "tfgate-gate-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(scratch)
	planned := a.pr.HeadSHA
	if a.queue != "" {
		planned = a.queue
	}
	dir, err := a.plans.Fetch(ctx, a.want(planned), filepath.Join(scratch, "fetched"))
	if errors.Is(err, bundle.ErrNoBundle) {
		return nil // every target is refused: no bundle for the head
	}
	if err != nil {
		return fmt.Errorf("fetch the plans of %s from %s: %w", git.ShortSHA(planned), a.plans, err)
	}
	if err := a.gateManifests(ctx, dir); err != nil {
		return err
	}
	return a.gateStale(ctx, sel, scratch)
}

// judgedBase is the commit the pull request's change is judged against and its rules come
// from: the merge queue's base below the group's entries; else what GitHub's test merge
// merged the head into, as the plan judged it (base.sha lags the base branch); else base.sha.
func (a *runFacts) judgedBase(ctx context.Context, checkout git.Git) (string, error) {
	baseRev := a.pr.BaseSHA
	if a.queue != "" && a.gh.Event.BaseSHA != "" {
		// The queue's base: what the group's commit adds to, below every entry ahead that
		// lands with it; each entry's pull request is found (gateGroup).
		var err error
		if baseRev, err = a.gateGroup(ctx, checkout); err != nil {
			return "", err
		}
	}
	if baseRev == "" {
		return "", fmt.Errorf("pull request #%d has no base commit", a.pr.Number)
	}
	if a.queue != "" {
		return baseRev, nil
	}
	m, ok, err := checkout.TestMergeBase(ctx, a.pr.HeadSHA, baseRev)
	if err != nil || !ok {
		return baseRev, err
	}
	return m, nil
}

// gateManifests matches the manifests of the bundles fetched into dir to the targets, by
// project and workspace. The gate reads the manifests only: of bundle acceptance, it
// judges the directory.
func (a *runFacts) gateManifests(ctx context.Context, dir string) error {
	dirs, err := bundle.List(ctx, dir)
	if err != nil {
		return err
	}
	for _, d := range dirs {
		m, err := bundle.Read(ctx, d)
		if err != nil {
			return fmt.Errorf("%s: %w", a.plans, err)
		}
		for i := range a.targets {
			t := &a.targets[i]
			if t.review == "" && t.p.Name == m.Project && t.p.Workspace == m.Workspace {
				if t.bundle != nil {
					return fmt.Errorf("%s holds two bundles of project %s (workspace %s)", a.plans, m.Project, m.Workspace)
				}
				mc := m
				t.bundle = &mc
				t.problems = append(t.problems, unappliedReasons(m)...) // plan_unapplied.go
				if m.Dir != t.p.Dir {
					t.problems = append(t.problems, gate.AcceptBundle(gate.BundleFacts{ProjectDir: t.p.Dir, BundleDir: m.Dir})...)
				}
			}
		}
	}
	return nil
}
