package drift

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	tfconfig "github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/report"
)

// Op is what happens to a project's issue.
type Op string

const (
	OpCreate Op = "create" // drift (or pending code, or an error) appeared: a new issue
	OpEdit   Op = "edit"   // still out of sync: the open issue's body (and title) updated in place
	OpReopen Op = "reopen" // it returned: the project's closed issue reopened, with a comment
	OpClose  Op = "close"  // back in sync: a comment, then the issue updated and closed
)

// Action is one issue change. Comment, when set, is posted on the issue before the edit.
type Action struct {
	Project int // index into the run's projects
	Op      Op
	Number  int // the existing issue; 0 for OpCreate
	Title   string
	Body    string
	Comment string
}

// Find is the project's issue among issues: one carrying the project's marker and written by
// id (anyone can type a marker). The newest open one wins, else the newest closed one.
func Find(issues []github.Issue, project string, id github.Identity) (github.Issue, bool) {
	var best github.Issue
	found := false
	for _, is := range issues {
		m, ok := github.ParseProjectMarker(is.Body)
		if !ok || m.Kind != MarkerKind || m.Project != project || !id.Is(is.Author) {
			continue
		}
		better := !found || (is.State == "open") != (best.State == "open") && is.State == "open" ||
			(is.State == "open") == (best.State == "open") && is.Number > best.Number
		if better {
			best, found = is, true
		}
	}
	return best, found
}

// PlanIssues decides every issue change of a run from the issues tfgate listed (all states):
// a pure function, so each case is a table row.
func PlanIssues(run report.Run, issues []github.Issue, id github.Identity, o BodyOptions) []Action {
	var out []Action
	for i, p := range run.Projects {
		is, found := Find(issues, p.Name, id)
		prev, hasPrev := State{}, false
		if found {
			prev, hasPrev = ParseState(is.Body)
		}
		open := found && is.State == "open"
		switch {
		case Tracked(p.Status) && !found:
			st := State{Status: p.Status, FirstSeen: o.Now}
			out = append(out, Action{Project: i, Op: OpCreate, Title: Title(p), Body: Body(p, st, o)})
		case Tracked(p.Status) && open:
			st := State{Status: p.Status, FirstSeen: prev.FirstSeen}
			if !hasPrev || prev.FirstSeen.IsZero() {
				st.FirstSeen = o.Now
			}
			out = append(out, Action{Project: i, Op: OpEdit, Number: is.Number, Title: Title(p), Body: Body(p, st, o)})
		case Tracked(p.Status):
			st := State{Status: p.Status, FirstSeen: o.Now}
			out = append(out, Action{Project: i, Op: OpReopen, Number: is.Number, Title: Title(p), Body: Body(p, st, o),
				Comment: fmt.Sprintf("%s **%s** again at %s; reopening. The issue body has the details.",
					iconWord(p.Status), word(p.Status), stamp(o.Now))})
		case p.Status == report.StatusInSync && open:
			st := State{Status: p.Status, FirstSeen: prev.FirstSeen}
			if st.FirstSeen.IsZero() {
				st.FirstSeen = o.Now
			}
			out = append(out, Action{Project: i, Op: OpClose, Number: is.Number, Body: Body(p, st, o),
				Comment: fmt.Sprintf("✅ Back in sync at %s: infrastructure, state and code agree. Closing; tfgate reopens this issue if the project drifts again.", stamp(o.Now))})
		}
	}
	return out
}

func word(s report.Status) string {
	switch s {
	case report.StatusPending:
		return "code in Git not applied"
	case report.StatusFailed:
		return "drift check failed"
	}
	return "drifted"
}

func iconWord(s report.Status) string {
	switch s {
	case report.StatusPending:
		return "⏳"
	case report.StatusFailed:
		return "💥"
	}
	return "⚡"
}

// IssueOptions configure PublishIssues.
type IssueOptions struct {
	API      github.API
	Repo     github.Repo
	Identity string   // config github.identity; "" = find out
	Labels   []string // nil = DefaultLabels
	Body     BodyOptions
}

// PublishIssues keeps one issue per project up to date and returns the run with each
// project's issue URL. It lists the labelled issues once (all states, every page), whatever
// the number of projects; then each change costs one call (two to close or reopen: the
// comment and the edit), and the labels are listed (and created when missing) only when an
// issue is created. Every project is attempted; the error names those that failed.
func PublishIssues(ctx context.Context, o IssueOptions, run report.Run) (report.Run, error) {
	labels := o.Labels
	if len(labels) == 0 {
		labels = DefaultLabels
	}
	id, err := github.ResolveIdentity(ctx, o.API, o.Identity)
	if err != nil {
		return run, err
	}
	// By the first label only (the others may be removed by hand), every state (a closed
	// issue is reopened, never duplicated); not by creator: the author is checked on each
	// issue (Find), and GitHub's creator filter is not documented for bot accounts.
	issues, err := o.API.ListIssues(ctx, o.Repo, github.IssueFilter{State: "all", Labels: labels[:1]})
	if err != nil {
		return run, fmt.Errorf("list drift issues: %w", err)
	}
	projects := slices.Clone(run.Projects)
	run.Projects = projects
	actions := PlanIssues(run, issues, id, o.Body)
	var errs []string
	if slices.ContainsFunc(actions, func(a Action) bool { return a.Op == OpCreate }) {
		if err := ensureLabels(ctx, o.API, o.Repo, labels); err != nil {
			errs = append(errs, err.Error())
		}
	}
	for i, p := range projects {
		if is, ok := Find(issues, p.Name, id); ok && is.State == "open" {
			projects[i].Issue = is.HTMLURL
		}
	}
	for _, a := range actions {
		is, err := apply(ctx, o.API, o.Repo, labels, a)
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %s issue: %v", projects[a.Project].Name, a.Op, err))
			continue
		}
		projects[a.Project].Issue = is.HTMLURL
		if a.Op == OpCreate && is.Author.Login != "" && !id.Is(is.Author) {
			// The identity was a guess (a GitHub App's token may not call GET /user either):
			// without the real login the next run would not find this issue and open another.
			errs = append(errs, fmt.Sprintf("tfgate writes as %s, not %s (%s): set github.identity: %q in %s so that the next run finds its issues",
				is.Author.Login, id.Login, id.Source, is.Author.Login, tfconfig.FileName))
		}
	}
	if len(errs) > 0 {
		return run, errors.New(strings.Join(errs, "; "))
	}
	return run, nil
}

func apply(ctx context.Context, api github.API, repo github.Repo, labels []string, a Action) (github.Issue, error) {
	if a.Op == OpCreate {
		return api.CreateIssue(ctx, repo, github.IssueRequest{Title: &a.Title, Body: &a.Body, Labels: &labels})
	}
	if a.Comment != "" {
		if _, err := api.CreateIssueComment(ctx, repo, a.Number, a.Comment); err != nil {
			return github.Issue{}, err
		}
	}
	req := github.IssueRequest{Body: &a.Body}
	if a.Title != "" {
		req.Title = &a.Title
	}
	switch a.Op {
	case OpReopen:
		open := "open"
		req.State = &open
	case OpClose:
		closed := "closed"
		req.State = &closed
	}
	return api.EditIssue(ctx, repo, a.Number, req)
}

// ensureLabels creates the labels the repository lacks (GitHub compares names without case).
func ensureLabels(ctx context.Context, api github.API, repo github.Repo, labels []string) error {
	have, err := api.ListLabels(ctx, repo)
	if err != nil {
		return fmt.Errorf("list labels: %w", err)
	}
	for _, l := range labels {
		if slices.ContainsFunc(have, func(h github.Label) bool { return strings.EqualFold(h.Name, l) }) {
			continue
		}
		err := api.CreateLabel(ctx, repo, github.Label{Name: l, Color: "d93f0b", Description: "Infrastructure differs from Git (tfgate drift)"})
		if err != nil && github.HTTPStatus(err) != http.StatusUnprocessableEntity { // created meanwhile
			return fmt.Errorf("create label %q: %w", l, err)
		}
	}
	return nil
}
