package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	gh "github.com/google/go-github/v60/github"
)

// ErrTeamUnreadable is wrapped by TeamMembership's error when the token cannot read the
// team: GitHub answered 403, or 404 for the team itself. GITHUB_TOKEN is such a token: it
// is an installation token that cannot be given the organization permission "members".
// Read team owners with a GitHub App token granted "members: read" (or a member's token
// with read:org), or name owners by login.
var ErrTeamUnreadable = errors.New("the token cannot read the team")

// TeamMembership is GET /orgs/{org}/teams/{team_slug}/memberships/{username}: true for an
// active member; false for a pending invitation.
//
// GitHub answers 404 both for a login that is not a member and for a team the token cannot
// see (no such team, a secret team, or GITHUB_TOKEN, whose team reads are 404 as often as
// 403). A 404 is therefore told apart by asking for the team itself, one more call: when
// the team is visible the login is not a member (false, nil); when it is not, the error
// wraps ErrTeamUnreadable. A caller deciding whether someone may override a policy must
// treat that error as "cannot tell", never as "not a member" or as "member".
func (c *Client) TeamMembership(ctx context.Context, org, team, login string) (bool, error) {
	what := fmt.Sprintf("get membership of %s in team %s/%s", login, org, team)
	m, _, err := c.gh.Teams.GetTeamMembershipBySlug(ctx, url.PathEscape(org), url.PathEscape(team), url.PathEscape(login))
	switch {
	case err == nil:
		return m.GetState() == "active", nil
	case refused(err):
		return false, wrap(what, fmt.Errorf("%w %s/%s (GitHub answered 403): %w", ErrTeamUnreadable, org, team, err))
	case HTTPStatus(err) != http.StatusNotFound:
		return false, wrap(what, err)
	}
	_, _, terr := c.gh.Teams.GetTeamBySlug(ctx, url.PathEscape(org), url.PathEscape(team))
	switch {
	case terr == nil:
		return false, nil
	case refused(terr) || HTTPStatus(terr) == http.StatusNotFound:
		return false, wrap(what, fmt.Errorf("%w %s/%s: GitHub answers 404 for the team, which does not exist or which the token cannot see: %w",
			ErrTeamUnreadable, org, team, terr))
	}
	return false, wrap(fmt.Sprintf("get team %s/%s", org, team), terr)
}

// refused is a 403 refusal. Rate limits answered 403 are other error types in go-github
// (RateLimitError, AbuseRateLimitError), never an ErrorResponse.
func refused(err error) bool {
	var er *gh.ErrorResponse
	return errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusForbidden
}

// Team is GET /orgs/{org}/teams/{team_slug}: nil when the token can read the team. The
// error wraps ErrTeamUnreadable when GitHub answers 403, or 404 (no such team, a secret
// team, or a token without the organization permission members: read, such as
// GITHUB_TOKEN). tfgate doctor asks it of every owner team the configuration names.
func (c *Client) Team(ctx context.Context, org, team string) error {
	_, _, err := c.gh.Teams.GetTeamBySlug(ctx, url.PathEscape(org), url.PathEscape(team))
	switch {
	case err == nil:
		return nil
	case refused(err) || HTTPStatus(err) == http.StatusNotFound:
		return wrap(fmt.Sprintf("get team %s/%s", org, team), fmt.Errorf("%w %s/%s (GitHub answered %d): %w",
			ErrTeamUnreadable, org, team, HTTPStatus(err), err))
	}
	return wrap(fmt.Sprintf("get team %s/%s", org, team), err)
}
