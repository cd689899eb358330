package notify

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/tfgate/tfgate/internal/github"
)

// Op is what happens to a record: the GitHub issue tfgate keeps for one project.
type Op string

const (
	OpCreate Op = "create" // a new issue
	OpEdit   Op = "edit"   // the open issue's body (and title) updated in place
	OpReopen Op = "reopen" // the closed issue reopened, with a note
	OpClose  Op = "close"  // a note, then the issue updated and closed
)

// Change is one change to a record. Note, when set, is a comment posted on the issue
// after the edit: why it reopens or closes. After, so that a failed edit never leaves a
// note that the next run would post again.
type Change struct {
	Op     Op
	Number int    // the existing issue; 0 for OpCreate
	Title  string // "" keeps the title (OpEdit, OpClose)
	Body   string // the whole body, starting with the record's RecordMarker
	Note   string
}

// Tracker keeps one GitHub issue per project for one kind of record (drift; tracking
// issues for merges not applied are another kind): found again by marker and author,
// created, edited in place, closed and reopened with a note. It decides nothing about
// what the issue says: its callers build the Changes (a pure function of the run and the
// issues List returned), and Tracker carries them out.
type Tracker struct {
	API      github.API
	Repo     github.Repo
	Identity github.Identity // who tfgate writes as: only its issues are records
	Kind     string          // the RecordMarker kind
	// Labels go on every issue created; the first one finds the records (List), so it
	// must not be removed by hand. Missing ones are created with LabelDescription.
	Labels           []string
	LabelColor       string
	LabelDescription string
}

// List lists every issue that may be a record: those with the first label, in every state
// (a closed record is reopened, never duplicated), every page, in one listing whatever the
// number of projects. Not by creator: the author is checked on each issue (Records), and
// GitHub's creator filter is not documented for bot accounts.
func (t Tracker) List(ctx context.Context) ([]github.Issue, error) { return t.ListState(ctx, "all") }

// ListState is List of the issues in one state: "open", "closed" or "all".
func (t Tracker) ListState(ctx context.Context, state string) ([]github.Issue, error) {
	if len(t.Labels) == 0 {
		return nil, fmt.Errorf("%s issues: no label to find them by", t.Kind)
	}
	issues, err := t.API.ListIssues(ctx, t.Repo, github.IssueFilter{State: state, Labels: t.Labels[:1]})
	if err != nil {
		return nil, fmt.Errorf("list %s issues: %w", t.Kind, err)
	}
	return issues, nil
}

// Find is the project's record among issues (Records' first).
func (t Tracker) Find(issues []github.Issue, project string) (github.Issue, bool) {
	rs := Records(issues, t.Kind, project, t.Identity)
	if len(rs) == 0 {
		return github.Issue{}, false
	}
	return rs[0], true
}

// Records are the project's records of this kind among issues, best first: the issues
// that start with the project's RecordMarker AND are written by id (anyone can type a
// marker), open ones before closed ones, newer before older within each. More than one is
// a duplicate: callers act on the first.
func Records(issues []github.Issue, kind, project string, id github.Identity) []github.Issue {
	var out []github.Issue
	for _, is := range issues {
		m, ok := ParseRecordMarker(is.Body)
		if ok && m.Kind == kind && m.Project == project && id.Is(is.Author) {
			out = append(out, is)
		}
	}
	slices.SortStableFunc(out, func(a, b github.Issue) int {
		if ao, bo := a.State == "open", b.State == "open"; ao != bo {
			if ao {
				return -1
			}
			return 1
		}
		return b.Number - a.Number
	})
	return out
}

// Apply carries out one change: one call, two when a note follows the edit. The edit
// comes first: if it fails, nothing was said; if the note fails, the issue is already in
// its new state, so the next run has nothing to do and says nothing twice (the error says
// the note is missing).
func (t Tracker) Apply(ctx context.Context, c Change) (github.Issue, error) {
	if c.Op == OpCreate {
		labels := t.Labels
		return t.API.CreateIssue(ctx, t.Repo, github.IssueRequest{Title: &c.Title, Body: &c.Body, Labels: &labels})
	}
	is, err := t.API.EditIssue(ctx, t.Repo, c.Number, t.edit(c))
	if err != nil || c.Note == "" {
		return is, err
	}
	if _, err := t.API.CreateIssueComment(ctx, t.Repo, c.Number, c.Note); err != nil {
		return is, fmt.Errorf("issue #%d is %s, but its note could not be posted: %w", c.Number, is.State, err)
	}
	return is, nil
}

// edit is the request that carries out a change other than a creation.
func (t Tracker) edit(c Change) github.IssueRequest {
	req := github.IssueRequest{Body: &c.Body}
	if c.Title != "" {
		req.Title = &c.Title
	}
	switch c.Op {
	case OpReopen:
		open := "open"
		req.State = &open
	case OpClose, OpDuplicate:
		closed := "closed"
		req.State = &closed
	}
	return req
}

// EnsureLabels creates the labels the repository lacks (GitHub compares names without
// case): needed before the first issue is created, not on every run.
func (t Tracker) EnsureLabels(ctx context.Context) error {
	have, err := t.API.ListLabels(ctx, t.Repo)
	if err != nil {
		return fmt.Errorf("list labels: %w", err)
	}
	for _, l := range t.Labels {
		if slices.ContainsFunc(have, func(h github.Label) bool { return strings.EqualFold(h.Name, l) }) {
			continue
		}
		err := t.API.CreateLabel(ctx, t.Repo, github.Label{Name: l, Color: t.LabelColor, Description: t.LabelDescription})
		if err != nil && github.HTTPStatus(err) != http.StatusUnprocessableEntity { // created meanwhile
			return fmt.Errorf("create label %q: %w", l, err)
		}
	}
	return nil
}
