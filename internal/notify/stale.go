package notify

import (
	"context"
	"fmt"
	"unicode/utf8"

	"github.com/tfgate/tfgate/internal/english"
	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/render"
)

// TellStale tells open pull request n (head sha) that the default branch made its plan
// stale (tfgate notify-stale): tfgate/gate on its head turns pending when a re-plan was
// started, failure when not; the first part of tfgate's sticky plan comment, when there is
// one, gets the stale banner at its top and the stale gate line. A new plan replaces both.
func TellStale(ctx context.Context, gh *GitHub, repo github.Repo, n int, head string, s render.Stale, warn func(string)) error {
	st := github.Status{State: github.StateFailure, Context: StatusGate, Description: render.StaleStatus(s), TargetURL: gh.Env.RunURL()}
	if s.Replanning {
		st.State = github.StatePending
	}
	creator, err := gh.API.CreateStatus(ctx, repo, head, st)
	if err != nil {
		return fmt.Errorf("set status %s: %w", StatusGate, err)
	}
	login := gh.Identity
	if login == "" {
		login = creator.Login // who the token writes as: the sticky comment's author
	}
	// Without a creator, the client's identity, resolved once a run (GET /user, a 403 under
	// GITHUB_TOKEN), never once per pull request.
	id, err := github.IdentityOf(ctx, gh.API, login)
	if err != nil {
		return fmt.Errorf("stale banner: %w", err)
	}
	comments, err := gh.API.ListIssueComments(ctx, repo, n)
	if err != nil {
		return fmt.Errorf("stale banner: %w", err)
	}
	for _, c := range Own(comments, "plan", n, id) {
		if m, _ := ParseCommentMarker(c.Body); m.Part != 1 {
			continue
		}
		body := render.SetGateLine(render.SetStaleBanner(c.Body, render.StaleBanner(s)), render.StaleGateLine(s))
		if body == c.Body {
			return nil
		}
		if utf8.RuneCountInString(body) > github.MaxCommentChars {
			warn(fmt.Sprintf("pull request #%d: the stale banner does not fit into the plan comment (GitHub's %s-character limit); the status %s says it", n, english.Count(github.MaxCommentChars), StatusGate))
			return nil
		}
		if _, err := gh.API.EditIssueComment(ctx, repo, c.ID, body); err != nil {
			return fmt.Errorf("stale banner: %w", err)
		}
		return nil
	}
	return nil
}
