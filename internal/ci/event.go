package ci

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Event is what tfgate needs from the webhook payload of the event that started a
// workflow, the same shape whatever the event. Fields an event does not have are zero.
type Event struct {
	Name   string // pull_request, pull_request_target, pull_request_review, push, merge_group, schedule, workflow_dispatch
	Action string // the payload's action: opened, synchronize, submitted, checks_requested, …

	Owner, Repo   string // the repository the workflow runs in (the pull request's base)
	DefaultBranch string

	// PRNumber is the pull request's number; for merge_group, parsed from the queue's head
	// ref (refs/heads/gh-readonly-queue/main/pr-42-<sha>). 0 when there is none.
	PRNumber int
	// HeadSHA is the commit to plan: the pull request's head, the pushed commit, the merge
	// group's head; for schedule and workflow_dispatch, GITHUB_SHA (filled by GitHub.Event).
	HeadSHA string
	// BaseSHA is the commit that decides the rules and what changed: the pull request's
	// base, the merge group's base, the commit before a push. "" when there is none.
	BaseSHA string
	HeadRef string // the pull request's branch, the pushed ref, the merge group's ref
	BaseRef string // the pull request's or merge group's base branch
	Author  string // the pull request's author; for other events who triggered it (sender)
	// HeadRepo is the full name of the repository the pull request's head lives in.
	HeadRepo string
	// Fork: the pull request's head is in another repository than its base (or in one that
	// was deleted). Such code must not run with the base repository's secrets.
	Fork   bool
	Review *Review // pull_request_review only
	// Labels are the pull request's labels as the payload lists them, one per line (a
	// string keeps Event comparable); see LabelList.
	Labels string
	// Before is the pull request's head before this push (pull_request and
	// pull_request_target "synchronize": the payload's before); "" otherwise. A plan may
	// reuse what that head's plan planned (docs/busy-repositories.md).
	Before string
	// DispatchBase is a workflow_dispatch's input base: the default branch's commit the
	// pull request (input pr, in PRNumber) is to be planned on (tfgate notify-stale's
	// re-plan).
	DispatchBase string
}

// Review is the review of a pull_request_review event.
type Review struct {
	State    string // approved, changes_requested, commented, dismissed
	Author   string
	CommitID string // the commit the review was made on
}

// Events lists the events ParseEvent understands.
var Events = []string{"pull_request", "pull_request_target", "pull_request_review", "push", "merge_group", "schedule", "workflow_dispatch"}

// payload is the union of the fields tfgate reads from the events it understands.
type payload struct {
	Action      string       `json:"action"`
	Repository  *repository  `json:"repository"`
	Sender      *user        `json:"sender"`
	PullRequest *pullRequest `json:"pull_request"`
	Review      *struct {
		State    string `json:"state"`
		User     *user  `json:"user"`
		CommitID string `json:"commit_id"`
	} `json:"review"`
	// push
	Ref    string `json:"ref"`
	Before string `json:"before"`
	After  string `json:"after"`
	// merge_group
	MergeGroup *struct {
		HeadSHA string `json:"head_sha"`
		HeadRef string `json:"head_ref"`
		BaseSHA string `json:"base_sha"`
		BaseRef string `json:"base_ref"`
	} `json:"merge_group"`
	// workflow_dispatch
	Inputs map[string]json.RawMessage `json:"inputs"`
}

type repository struct {
	FullName      string `json:"full_name"`
	Name          string `json:"name"`
	Owner         *user  `json:"owner"`
	DefaultBranch string `json:"default_branch"`
}

type user struct {
	Login string `json:"login"`
}

type pullRequest struct {
	Number int   `json:"number"`
	User   *user `json:"user"`
	Head   *ref  `json:"head"`
	Base   *ref  `json:"base"`
	Labels []struct {
		Name string `json:"name"`
	} `json:"labels"`
}

type ref struct {
	Ref  string      `json:"ref"`
	SHA  string      `json:"sha"`
	Repo *repository `json:"repo"`
}

// ParseEvent reads the payload of event name. A payload that is not JSON, or lacks what
// the event must carry (a pull request's number and SHAs, a push's commit), is an error
// saying what is missing; callers add the file's name.
func ParseEvent(name string, data []byte) (Event, error) {
	known := false
	for _, e := range Events {
		known = known || e == name
	}
	if !known {
		return Event{}, fmt.Errorf("event %q is not one tfgate handles (%s)", name, strings.Join(Events, ", "))
	}
	var p payload
	if err := json.Unmarshal(data, &p); err != nil {
		return Event{}, fmt.Errorf("%s event payload is not valid JSON: %w", name, err)
	}
	ev := Event{Name: name, Action: p.Action}
	if r := p.Repository; r != nil {
		ev.Owner, ev.Repo = splitRepo(r.FullName)
		if ev.Owner == "" && r.Owner != nil {
			// Both halves or neither, with splitRepo's checks: an owner without a name would
			// also keep GitHub.Event from falling back to GITHUB_REPOSITORY.
			ev.Owner, ev.Repo = splitRepo(r.Owner.Login + "/" + r.Name)
		}
		ev.DefaultBranch = r.DefaultBranch
	}
	if p.Sender != nil {
		ev.Author = p.Sender.Login
	}
	var err error
	switch name {
	case "pull_request", "pull_request_target", "pull_request_review":
		err = ev.pullRequest(p)
	case "push":
		err = ev.push(p)
	case "merge_group":
		err = ev.mergeGroup(p)
	case "workflow_dispatch":
		err = ev.dispatch(p)
	}
	if err != nil {
		return Event{}, fmt.Errorf("%s event payload: %w", name, err)
	}
	return ev, nil
}

func (ev *Event) pullRequest(p payload) error {
	pr := p.PullRequest
	switch {
	case pr == nil:
		return fmt.Errorf("no pull_request object")
	case pr.Number <= 0:
		return fmt.Errorf("no pull_request.number")
	case pr.Head == nil || !isSHA(pr.Head.SHA):
		return fmt.Errorf("pull_request.head.sha is missing or not a commit SHA")
	case pr.Base == nil || !isSHA(pr.Base.SHA):
		return fmt.Errorf("pull_request.base.sha is missing or not a commit SHA")
	}
	ev.PRNumber = pr.Number
	for _, l := range pr.Labels {
		ev.Labels += l.Name + "\n"
	}
	ev.HeadSHA, ev.HeadRef = pr.Head.SHA, pr.Head.Ref
	ev.BaseSHA, ev.BaseRef = pr.Base.SHA, pr.Base.Ref
	if ev.Name != "pull_request_review" && ev.Action == "synchronize" && isSHA(p.Before) && p.Before != pr.Head.SHA {
		ev.Before = p.Before
	}
	if pr.User != nil {
		ev.Author = pr.User.Login
	}
	base := ev.Owner + "/" + ev.Repo
	if pr.Base.Repo != nil && pr.Base.Repo.FullName != "" {
		base = pr.Base.Repo.FullName
	}
	if pr.Head.Repo != nil {
		ev.HeadRepo = pr.Head.Repo.FullName
	}
	// A head repository that is gone (a deleted fork), or is not owner/name, counts as a
	// fork: it is not known to be ours (with no base repository in the payload, base is "/").
	headOwner, _ := splitRepo(ev.HeadRepo)
	ev.Fork = headOwner == "" || !strings.EqualFold(ev.HeadRepo, base)
	if ev.Name == "pull_request_review" {
		if p.Review == nil {
			return fmt.Errorf("no review object")
		}
		ev.Review = &Review{State: strings.ToLower(p.Review.State), CommitID: p.Review.CommitID}
		if p.Review.User != nil {
			ev.Review.Author = p.Review.User.Login
		}
	}
	return nil
}

func (ev *Event) push(p payload) error {
	if !isSHA(p.After) {
		return fmt.Errorf("after is missing or not a commit SHA")
	}
	if p.Ref == "" {
		return fmt.Errorf("no ref")
	}
	ev.HeadSHA, ev.HeadRef = p.After, p.Ref
	if isSHA(p.Before) && strings.Trim(p.Before, "0") != "" {
		ev.BaseSHA = p.Before // all zeros: a new branch, nothing before it
	}
	return nil
}

// queueRef is a merge queue branch: gh-readonly-queue/<base>/pr-<number>-<head sha>.
var queueRef = regexp.MustCompile(`^(?:refs/heads/)?gh-readonly-queue/.+/pr-([0-9]+)-[0-9a-f]{40}$`)

func (ev *Event) mergeGroup(p payload) error {
	mg := p.MergeGroup
	switch {
	case mg == nil:
		return fmt.Errorf("no merge_group object")
	case !isSHA(mg.HeadSHA):
		return fmt.Errorf("merge_group.head_sha is missing or not a commit SHA")
	case !isSHA(mg.BaseSHA):
		return fmt.Errorf("merge_group.base_sha is missing or not a commit SHA")
	}
	ev.HeadSHA, ev.HeadRef, ev.BaseSHA, ev.BaseRef = mg.HeadSHA, mg.HeadRef, mg.BaseSHA, mg.BaseRef
	if m := queueRef.FindStringSubmatch(mg.HeadRef); m != nil {
		n, err := strconv.Atoi(m[1])
		if err == nil && n > 0 {
			ev.PRNumber = n
		}
	}
	return nil
}

// isSHA: 40 (SHA-1) or 64 (SHA-256) hex digits.
func isSHA(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
