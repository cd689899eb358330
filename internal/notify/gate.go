package notify

import (
	"context"
	"fmt"
	"unicode/utf8"

	"github.com/tfgate/tfgate/internal/english"
	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/render"
	"github.com/tfgate/tfgate/internal/report"
)

// Gate publishes the approval gate's verdict on one pull request: the status tfgate/gate
// and the gate line in the first part of the sticky plan comment.
type Gate struct {
	GitHub *GitHub
	Repo   github.Repo
	PR     int
	// SHA is the commit the status goes on: the pull request's head, or a merge queue
	// group's commit (the queue's required check is there).
	SHA      string
	identity string // learnt from the status tfgate created
}

// Status sets tfgate/gate on g.SHA.
func (g *Gate) Status(ctx context.Context, v *report.Verdict) error {
	st := github.Status{State: statusState(v.State), Context: StatusGate, Description: render.FitStatus(v.Description), TargetURL: g.GitHub.Env.RunURL()}
	creator, err := g.GitHub.API.CreateStatus(ctx, g.Repo, g.SHA, st)
	if err != nil {
		return fmt.Errorf("set status %s: %w", StatusGate, err)
	}
	// Whatever the token, the status it created says who it writes as: the author of the
	// sticky comment to look for (no GET /user, which GITHUB_TOKEN may not call).
	g.identity = creator.Login
	return nil
}

// statusState is the commit status state that says a verdict's state: the one place the
// gate's states meet GitHub's. A state none of the gate's (read from a foreign result file)
// fails: the status never passes on what tfgate does not know.
func statusState(s report.GateState) string {
	switch s {
	case report.GateAllowed:
		return github.StateSuccess
	case report.GatePending:
		return github.StatePending
	case report.GateError:
		return github.StateError
	}
	return github.StateFailure
}

// Line writes the verdict into the first part of tfgate's sticky plan comment, when there
// is one: reviewers read it where they read the plan.
func (g *Gate) Line(ctx context.Context, run report.Run, warn func(string)) error {
	api := g.GitHub.API
	login := g.GitHub.Identity
	if login == "" {
		login = g.identity
	}
	id, err := github.ResolveIdentity(ctx, api, login)
	if err != nil {
		return fmt.Errorf("gate line not written into the plan comment: %w", err)
	}
	comments, err := api.ListIssueComments(ctx, g.Repo, g.PR)
	if err != nil {
		return fmt.Errorf("gate line not written into the plan comment: %w", err)
	}
	for _, c := range Own(comments, "plan", g.PR, id) {
		if m, _ := ParseCommentMarker(c.Body); m.Part != 1 {
			continue
		}
		body := render.SetGateLine(c.Body, render.GateLine(run))
		if body == c.Body {
			return nil
		}
		if utf8.RuneCountInString(body) > github.MaxCommentChars {
			warn(fmt.Sprintf("the gate line does not fit into the plan comment (GitHub's %s-character limit); the status %s has the verdict", english.Count(github.MaxCommentChars), StatusGate))
			return nil
		}
		_, err := api.EditIssueComment(ctx, g.Repo, c.ID, body)
		return err
	}
	return nil
}
