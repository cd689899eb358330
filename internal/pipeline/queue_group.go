package pipeline

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/tfgate/tfgate/internal/ci"
	"github.com/tfgate/tfgate/internal/gate"
	"github.com/tfgate/tfgate/internal/git"
	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/project"
	"github.com/tfgate/tfgate/internal/stage"
)

// A merge queue lands several pull requests at once. GitHub builds one commit per queued
// pull request, each on top of the one ahead of it (gh-readonly-queue/<base>/pr-<N>-<head>):
// every commit on the first-parent line from the queue's base to the group's head is one
// entry, and merging the group fast-forwards the base branch to the last entry's commit. A
// review covers one pull request, so every project the group changes is judged by the
// approvals of the pull request(s) whose entry changed it, and a commit of the group that
// cannot be tied to a pull request refuses the whole group.

// queueEntry is one pull request of a merge queue group.
type queueEntry struct {
	pr   github.PullRequest
	tip  string // the entry's commit: the queue's merge of the pull request
	from string // the commit it was built on: the entry ahead's, or the group's base
	// projects are the keys (entryKey) of the projects the entry's changes touch.
	projects map[string]bool
}

// queueGroup is the pull requests a merge queue lands together, oldest first.
type queueGroup struct {
	base    string // the commit the group is built on
	entries []queueEntry
	// problem says, in gate's words (gate.GroupUnlisted, CheckPushCommit, …), why the
	// group's pull requests cannot be identified: every project is refused with it.
	problem string
	// note says which pull request of the group changed what, for the run's notes
	// (attributeGroup); "" before.
	note string
}

// notes are the group's note for the run's notes: none without a group or a note.
func (g *queueGroup) notes() []string {
	if g == nil || g.note == "" {
		return nil
	}
	return []string{g.note}
}

func entryKey(p project.Project) string { return p.Name + "\x00" + p.Workspace }

// queuePrefix is the prefix of the merge queue branches of base branch ("main") for
// GET /git/matching-refs.
func queuePrefix(branch string) string { return "heads/gh-readonly-queue/" + branch + "/" }

// queueTips lists the merge queue's branches into branch: each one's commit → the branch
// name's pull request and head. One API call (a page per 100 branches).
func queueTips(ctx context.Context, api github.API, repo github.Repo, branch string) (map[string]ci.QueueBranch, error) {
	prefix := queuePrefix(branch)
	refs, err := api.ListMatchingRefs(ctx, repo, strings.TrimSuffix(prefix, "/"))
	if err != nil {
		return nil, fmt.Errorf("list the merge queue's branches: %w", err)
	}
	tips := map[string]ci.QueueBranch{}
	for _, r := range refs {
		if !strings.HasPrefix(r.Name, "refs/"+prefix) { // heads/gh-readonly-queue/main also matches main-2/
			continue
		}
		if qb, ok := ci.ParseQueueBranch(r.Name); ok && qb.Base == branch {
			tips[r.SHA] = qb
		}
	}
	return tips, nil
}

// QueueBase is the commit a merge_group event's group is built on: the event's base_sha,
// or — when base_sha is itself the commit of a queue entry ahead (GitHub's base_sha is the
// group's parent commit) — the commit below every entry ahead that has not landed: those
// land together with this one when the queue merges it, so they are part of what is
// planned and judged. The tips are the queue's branches (queueTips).
func QueueBase(ctx context.Context, checkout git.Git, ev ci.Event, tips map[string]ci.QueueBranch) (string, error) {
	base := ev.BaseSHA
	for range git.MaxChain {
		if _, ahead := tips[base]; !ahead {
			return base, nil
		}
		parent, err := checkout.Commit(ctx, base+"^1")
		if err != nil {
			return "", fmt.Errorf("the merge queue's entry %s has no parent in this clone: fetch the history (actions/checkout with fetch-depth: 0): %w", git.ShortSHA(base), err)
		}
		base = parent
	}
	return "", fmt.Errorf("more than %d merge queue entries lie below %s", git.MaxChain, git.ShortSHA(ev.BaseSHA))
}

// QueuePlanBase is what `tfgate plan` compares a merge_group's commit with: QueueBase,
// from the queue's branches (one API call).
func QueuePlanBase(ctx context.Context, api github.API, root string, ev ci.Event) (string, error) {
	tips, err := queueTips(ctx, api, github.Repo{Owner: ev.Owner, Name: ev.Repo}, queueBaseBranch(ev, ""))
	if err != nil {
		return "", err
	}
	return QueueBase(ctx, git.Git{Dir: root}, ev, tips)
}

func queueBaseBranch(ev ci.Event, fallback string) string {
	if b := strings.TrimPrefix(ev.BaseRef, "refs/heads/"); b != "" {
		return b
	}
	return fallback
}

// gateGroup finds the pull requests of the merge_group's group: every first-parent commit
// from the group's base (QueueBase) to its head must be the commit of a queue branch (or,
// with the rebase method, a replayed commit below one), the branch naming the pull request
// and the head it was built from, which must still be the pull request's head. It returns
// the group's base, what the gate compares with and takes the rules from; a.group is set
// unless the group is the head's pull request alone, and holds the problem when the group
// cannot be identified.
func (a *runFacts) gateGroup(ctx context.Context, checkout git.Git) (string, error) {
	ev := a.gh.Event
	branch := queueBaseBranch(ev, a.pr.BaseRef)
	tips, err := queueTips(ctx, a.gh.API, a.repo, branch)
	if err != nil {
		return "", err
	}
	// The event's own head_ref names the head's entry, should the listing have missed it.
	if qb, ok := ci.ParseQueueBranch(ev.HeadRef); ok {
		if _, known := tips[ev.HeadSHA]; !known {
			tips[ev.HeadSHA] = qb
		}
	}
	base, err := QueueBase(ctx, checkout, ev, tips)
	if err != nil {
		return "", err
	}
	g := &queueGroup{base: base}
	a.group = g
	chain, err := checkout.FirstParents(ctx, base, ev.HeadSHA)
	if err != nil {
		g.problem = gate.GroupUnlisted(err)
		return base, nil
	}
	from := base
	var pending []string
	for _, c := range chain {
		qb, ok := tips[c.SHA]
		if !ok {
			pending = append(pending, c.SHA) // a rebase merge's replayed commit: part of the entry above it
			continue
		}
		if g.problem = gate.CheckGroupCommit(queueCommit(c), qb.PR, qb.Head, pending); g.problem != "" {
			return base, nil
		}
		pr, err := a.entryPull(ctx, qb.PR)
		if err != nil {
			return "", err
		}
		if pr.HeadSHA != qb.Head {
			g.problem = gate.GroupEntryMoved(c.SHA, qb.PR, qb.Head, pr.HeadSHA)
			return base, nil
		}
		e := queueEntry{tip: c.SHA, from: from, pr: pr}
		if slices.ContainsFunc(g.entries, func(o queueEntry) bool { return o.pr.Number == pr.Number }) {
			g.problem = gate.GroupEntryTwice(pr.Number, c.SHA)
			return base, nil
		}
		g.entries = append(g.entries, e)
		from, pending = c.SHA, nil
	}
	if a.groupEnd(g, pending, branch) {
		return base, nil
	}
	if len(g.entries) == 1 {
		a.group = nil // the head's pull request alone: judged as it always was
	}
	return base, nil
}

// groupEnd sets g.problem, in gate's words, when the end of group g is wrong, its commits
// read up to the head: commits left over that no queue branch names (pending), no entry,
// or a last entry not the head's pull request. It reports whether it did.
func (a *runFacts) groupEnd(g *queueGroup, pending []string, branch string) bool {
	head := a.gh.Event.HeadSHA
	switch {
	case len(pending) > 0:
		g.problem = gate.GroupCommitUnknown(pending[0], g.base, head, branch)
	case len(g.entries) == 0:
		g.problem = gate.GroupCommitUnknown(head, g.base, head, branch)
	case g.entries[len(g.entries)-1].pr.Number != a.pr.Number:
		g.problem = gate.GroupWrongHead(head, g.entries[len(g.entries)-1].pr.Number, a.pr.Number)
	}
	return g.problem != ""
}

// entryPull is pull request n of the merge queue's group: the head's own, or read.
func (a *runFacts) entryPull(ctx context.Context, n int) (github.PullRequest, error) {
	if n == a.pr.Number {
		return a.pr, nil
	}
	pr, err := a.gh.API.GetPull(ctx, a.repo, n)
	if err != nil {
		return pr, fmt.Errorf("read pull request #%d of the merge group: %w", n, err)
	}
	return pr, nil
}

// queueCommit is c as gate judges it.
func queueCommit(c git.Commit) gate.QueueCommit {
	return gate.QueueCommit{SHA: c.SHA, Parents: c.Parents}
}

// pushGroup finds the pull requests a push landed, when it added more than one commit to
// the branch's first-parent line (a merge queue's group, or a rebase merge): each commit
// must be the merge commit of a merged pull request, or one GitHub says a merged pull
// request brought in (a rebase merge's replayed commits, below that pull request's last
// one). One GET /commits/{sha}/pulls per commit besides the head. a.group is set when the
// push landed more than one pull request, or holds the problem when a commit cannot be
// tied to one.
func (a *runFacts) pushGroup(ctx context.Context, checkout git.Git, before, head string) error {
	chain, err := checkout.FirstParents(ctx, before, head)
	if err != nil {
		a.group = &queueGroup{base: before, problem: gate.PushUnlisted(err)}
		return nil
	}
	if len(chain) <= 1 {
		return nil // one merge commit: the pull request findPR found
	}
	g := &queueGroup{base: before}
	from := before
	var below []string // replayed commits waiting for their pull request's last commit
	var belowPR []int
	for _, c := range chain {
		var merged, introduced *github.PullRequest
		if c.SHA == head {
			merged = &a.pr
		} else {
			pulls, err := a.gh.API.ListCommitPulls(ctx, a.repo, c.SHA)
			if err != nil {
				return fmt.Errorf("find the pull request of commit %s of the push: %w", git.ShortSHA(c.SHA), err)
			}
			for i := range pulls {
				switch {
				case pulls[i].Merged && pulls[i].MergeCommitSHA == c.SHA:
					merged = &pulls[i]
				case pulls[i].Merged && introduced == nil:
					introduced = &pulls[i]
				}
			}
		}
		switch {
		case merged != nil:
			for i, n := range belowPR {
				if n != merged.Number {
					g.problem = gate.PushOutOfOrder(below[i], n, merged.Number, c.SHA)
					a.group = g
					return nil
				}
			}
			if g.problem = gate.CheckPushCommit(queueCommit(c), merged.Number, merged.HeadSHA, below); g.problem != "" {
				a.group = g
				return nil
			}
			if slices.ContainsFunc(g.entries, func(o queueEntry) bool { return o.pr.Number == merged.Number }) {
				g.problem = gate.PushMergedTwice(merged.Number, c.SHA)
				a.group = g
				return nil
			}
			g.entries = append(g.entries, queueEntry{pr: *merged, tip: c.SHA, from: from})
			from, below, belowPR = c.SHA, nil, nil
		case introduced != nil:
			below, belowPR = append(below, c.SHA), append(belowPR, introduced.Number)
		default:
			g.problem = gate.PushUntied(c.SHA, before, head)
			a.group = g
			return nil
		}
	}
	if len(g.entries) > 1 {
		a.group = g
	}
	return nil
}

// attributeGroup finds the projects each entry of the group changed: the files that differ
// between the entry's commit and the one it was built on, selected as plan selects the
// projects of a change (project.ChangedWhy over the projects of all), and words it in the
// group's note.
func (a *runFacts) attributeGroup(ctx context.Context, all []project.Project) error {
	g := a.group
	if g == nil || g.problem != "" {
		return nil
	}
	top, err := git.TopLevel(ctx, a.Root)
	if err != nil {
		return err
	}
	prefix, err := stage.RootPrefix(top, a.Root)
	if err != nil {
		return err
	}
	checkout := git.Git{Dir: a.Root}
	var parts []string
	for i := range g.entries {
		e := &g.entries[i]
		files, err := checkout.DiffFiles(ctx, e.from, e.tip)
		if err != nil {
			return err
		}
		e.projects = map[string]bool{}
		var names []string
		for _, t := range project.ChangedWhy(all, stage.RootRelative(prefix, files)) {
			e.projects[entryKey(t.Project)] = true
			names = append(names, t.Project.Name)
		}
		desc := "no project"
		if len(names) > 0 {
			desc = strings.Join(slices.Compact(names), ", ")
		}
		parts = append(parts, fmt.Sprintf("#%d (%s: %s)", e.pr.Number, git.ShortSHA(e.tip), desc))
	}
	g.note = "Merge queue group of " + fmt.Sprint(len(g.entries)) + " pull requests, each project judged by the approvals of the pull requests that changed it: " + strings.Join(parts, ", ") + "."
	return nil
}
