package pipeline

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/tfgate/tfgate/internal/git"
	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/notify"
	"github.com/tfgate/tfgate/internal/render"
	"github.com/tfgate/tfgate/internal/stage"
)

// tfgate notify-stale: after a push to the default branch (a merge, and its apply), every
// open pull request whose plan covers a project the push changed — or any project, when it
// changed a shared file — is told before it merges: tfgate/gate on its head turns pending
// (re-planning) or failure, its sticky plan comment gets a banner, and, where the token may
// start workflows (actions: write), its plan workflow is dispatched to plan it again on
// GitHub's test merge with the new default branch. The pull requests are found by the
// tfgate:<project> labels plan puts on them: the calls grow with the related pull
// requests, never with all open ones.

// Replan modes of notify-stale.
const (
	ReplanAuto   = "auto"   // dispatch the plan workflow; a token that may not is a warning
	ReplanAlways = "always" // as auto, but a token that may not is an error
	ReplanNever  = "never"  // only tell
)

// StaleRequest is what `tfgate notify-stale` was asked to do.
type StaleRequest struct {
	stage.Env
	// Base is the default branch's commit before the push; "" = the push event's before.
	Base     string
	GitHub   *GitHubRun
	Replan   string // ReplanAuto (default), ReplanAlways or ReplanNever
	Workflow string // the plan workflow's file name; default plan.yml
}

// StaleChange is what a push to the default branch changed that plans depend on.
type StaleChange struct {
	Branch   string
	Commit   string   // the pushed commit
	Projects []string // the projects it changed
	Shared   []string // the shared files it changed: every project's input
	All      []string // every project (what a shared file relates to)
	// Since is the commit the changes are counted from: the last one a run told for
	// (stale_record.go), the push's before, or --base.
	Since string
	// Earlier are the pull requests merged after Since and before the push, oldest first:
	// their runs told no one (cancelled).
	Earlier []int
	record  bool // this run records what it told (tfgate/stale on Commit)
}

// StalePull is one pull request told that its plan went stale.
type StalePull struct {
	Number     int
	Head       string
	Projects   []string // its projects the push changed
	Replanning bool     // its plan workflow was dispatched
	Note       string   // why it was not re-planned, when it was not
}

// StaleResult is what notify-stale did.
type StaleResult struct {
	Change StaleChange
	Merge  int // the pull request merged as Change.Commit; 0 = a direct push
	Pulls  []StalePull
}

// RunNotifyStale finds what the push changed and tells the related open pull requests.
func RunNotifyStale(ctx context.Context, req StaleRequest) (StaleResult, error) {
	req.Defaults()
	gh := req.GitHub
	if gh == nil || gh.API == nil {
		return StaleResult{}, errors.New("tfgate notify-stale tells pull requests on GitHub: run it in GitHub Actions with GITHUB_TOKEN, or pass --publish github")
	}
	ch, err := staleChange(ctx, req)
	if err != nil {
		return StaleResult{Change: ch}, err
	}
	res, err := NotifyStale(ctx, gh, ch, req.Replan, req.Workflow, req.Warn)
	if ch.record {
		if rerr := recordTold(ctx, gh, res, err); rerr != nil {
			err = errors.Join(err, rerr)
		}
	}
	return res, err
}

// staleChange is what the push (base..HEAD, HEAD the pushed commit) changed; on a push
// without --base, base is the last commit a run told for (stale_record.go).
func staleChange(ctx context.Context, req StaleRequest) (StaleChange, error) {
	ev := req.GitHub.Event
	ch := StaleChange{Branch: strings.TrimPrefix(ev.HeadRef, "refs/heads/"), Commit: ev.HeadSHA}
	if ch.Branch == "" {
		ch.Branch = ev.DefaultBranch
	}
	base := req.Base
	if base == "" {
		base = ev.BaseSHA
	}
	if base == "" {
		return ch, fmt.Errorf("tfgate notify-stale compares the default branch before and after a push: run it on push (the event's before), or pass --base COMMIT")
	}
	checkout := git.Git{Dir: req.Root}
	head, err := checkout.Head(ctx)
	if err != nil {
		return ch, err
	}
	if ch.Commit == "" || ev.Name != "push" {
		ch.Commit = head
	} else if head != ch.Commit {
		return ch, fmt.Errorf("the checkout %s is not the pushed commit %s: check out the push (actions/checkout's default)", git.ShortSHA(head), git.ShortSHA(ch.Commit))
	}
	if req.Base == "" && ev.Name == "push" {
		since, err := lastTold(ctx, req, checkout, ch.Branch, base)
		if err != nil {
			return ch, err
		}
		base, ch.Earlier, ch.record = since.base, since.earlier, since.record
	}
	ch.Since = base
	sel, err := stage.Select(ctx, stage.SelectOptions{Root: req.Root, Config: req.Config, ConfigFile: req.ConfigFile, Changed: true, Base: base})
	if err != nil {
		return ch, err
	}
	for _, p := range sel.Projects {
		ch.Projects = append(ch.Projects, p.Name)
	}
	for _, v := range sel.Vanished {
		ch.Projects = append(ch.Projects, v.Project.Name) // gone from main: a plan of it is stale too
	}
	ch.Shared = sel.Shared
	for _, p := range sel.All {
		ch.All = append(ch.All, p.Name)
	}
	return ch, nil
}

// NotifyStale tells the open pull requests related to ch. Calls: one for the merged pull
// request of the commit and one per label (page) listed — a label per changed project, or
// per project when a shared file changed, and github.ManyProjectsLabel — then per related
// pull request: read it, start its plan workflow, set its status, list and edit its comment.
// gh.API must be set (RunNotifyStale says so when it is not).
func NotifyStale(ctx context.Context, gh *GitHubRun, ch StaleChange, replan, workflow string, warn func(string)) (StaleResult, error) {
	res := StaleResult{Change: ch}
	if replan == "" {
		replan = ReplanAuto
	}
	if err := oneOfMode(replan); err != nil {
		return res, err
	}
	if workflow == "" {
		workflow = "plan.yml"
	}
	if ch.Branch == "" {
		ch.Branch, res.Change.Branch = "main", "main"
	}
	repo := github.Repo{Owner: gh.Event.Owner, Name: gh.Event.Repo}
	related := ch.Projects
	if len(ch.Shared) > 0 {
		related = ch.All
	}
	if len(related) == 0 {
		return res, nil
	}
	pulls, err := gh.API.ListCommitPulls(ctx, repo, ch.Commit)
	if err != nil {
		return res, fmt.Errorf("find the pull request merged as %s: %w", git.ShortSHA(ch.Commit), err)
	}
	for _, p := range pulls {
		if p.Merged && p.MergeCommitSHA == ch.Commit {
			res.Merge = p.Number
		}
	}
	byPull := map[int][]string{}
	add := func(label string, names []string) error {
		ns, err := gh.API.ListLabelledPulls(ctx, repo, label)
		if err != nil {
			return err
		}
		for _, n := range ns {
			for _, name := range names {
				if n != res.Merge && !slices.Contains(byPull[n], name) {
					byPull[n] = append(byPull[n], name)
				}
			}
		}
		return nil
	}
	for _, name := range related {
		if err := add(github.ProjectLabel(name), []string{name}); err != nil {
			return res, err
		}
	}
	// Pull requests planning more projects than they carry labels for relate to any change.
	if err := add(github.ManyProjectsLabel, related); err != nil {
		return res, err
	}
	numbers := make([]int, 0, len(byPull))
	for n := range byPull {
		numbers = append(numbers, n)
	}
	sort.Ints(numbers)
	dispatch := replan != ReplanNever
	var errs []string
	for _, n := range numbers {
		sp, err := notifyPull(ctx, gh, repo, ch, res.Merge, n, byPull[n], workflow, &dispatch, replan, warn)
		if err != nil {
			errs = append(errs, fmt.Sprintf("#%d: %v", n, err))
			if replan == ReplanAlways && errors.Is(err, errCannotDispatch) {
				break
			}
		}
		if sp.Number != 0 {
			res.Pulls = append(res.Pulls, sp)
		}
	}
	if len(errs) > 0 {
		return res, fmt.Errorf("could not tell every stale pull request: %s", strings.Join(errs, "; "))
	}
	return res, nil
}

var errCannotDispatch = errors.New("the token may not start workflows")

func oneOfMode(m string) error {
	switch m {
	case ReplanAuto, ReplanAlways, ReplanNever:
		return nil
	}
	return fmt.Errorf("--replan %q: want auto, always or never", m)
}

// notifyPull tells pull request n that the projects went stale: dispatch (when allowed),
// status, comment banner and gate line.
func notifyPull(ctx context.Context, gh *GitHubRun, repo github.Repo, ch StaleChange, merge, n int,
	projects []string, workflow string, dispatch *bool, replan string, warn func(string)) (StalePull, error) {
	pr, err := gh.API.GetPull(ctx, repo, n)
	if err != nil {
		return StalePull{}, err
	}
	if pr.State != "open" || pr.Merged {
		return StalePull{}, nil
	}
	sp := StalePull{Number: n, Head: pr.HeadSHA, Projects: projects}
	var dispatchErr error
	switch {
	case !*dispatch:
		sp.Note = "not re-planned (--replan never, or the token may not start workflows)"
	case pr.Fork:
		sp.Note = "not re-planned: a fork's code is never planned with the repository's secrets; a push to it re-plans it"
	default:
		err := gh.API.DispatchWorkflow(ctx, repo, workflow, pr.HeadRef, map[string]any{"pr": strconv.Itoa(n), "base": ch.Commit})
		switch {
		case err == nil:
			sp.Replanning = true
		case github.HTTPStatus(err) == http.StatusForbidden:
			*dispatch = false
			sp.Note = "not re-planned: the token may not start workflows (grant actions: write)"
			warn(fmt.Sprintf("stale pull requests are told but not re-planned: the token may not start the workflow %s (%v); grant the workflow actions: write, or re-plan them by hand", workflow, err))
			if replan == ReplanAlways {
				dispatchErr = fmt.Errorf("%w: %v", errCannotDispatch, err)
			}
		default:
			sp.Note = "not re-planned: " + err.Error()
			warn(fmt.Sprintf("pull request #%d: could not start its plan workflow %s on %s: %v (its branch may predate the workflow_dispatch trigger: merge the default branch into it)", n, workflow, pr.HeadRef, err))
		}
	}
	s := render.Stale{Branch: ch.Branch, Projects: projects, Merge: merge, Earlier: ch.Earlier, Commit: ch.Commit, Replanning: sp.Replanning}
	if len(ch.Shared) > 0 {
		s.Projects, s.Shared = nil, ch.Shared
	}
	if err := notify.TellStale(ctx, gh, repo, n, pr.HeadSHA, s, warn); err != nil {
		return sp, errors.Join(dispatchErr, err)
	}
	return sp, dispatchErr
}
