package githubtest

import (
	"fmt"
	"net/http"
	"strings"
)

// TeamAccess is what a token may read of an organization's teams.
//
// GitHub's GITHUB_TOKEN is an installation token without the organization permission
// "members": it cannot read teams, and GitHub answers its team reads 404 as if the team did
// not exist (e.g. hackforla/website#6971: a member's membership lookup is 404 without a
// personal token), on some endpoints 403 "Resource not accessible by integration"
// (cli/cli#4844). A GitHub App installation granted "members: read", or an organization
// member's personal token with read:org, reads them.
type TeamAccess int

const (
	// TeamsByKind is the default: installation tokens get TeamsHidden, personal tokens
	// TeamsReadable.
	TeamsByKind TeamAccess = iota
	// TeamsReadable reads teams and memberships.
	TeamsReadable
	// TeamsHidden is answered 404 on every team read: GITHUB_TOKEN.
	TeamsHidden
	// TeamsForbidden is answered 403 "Resource not accessible by integration".
	TeamsForbidden
)

func (t Token) teamAccess() TeamAccess {
	switch {
	case t.Teams != TeamsByKind:
		return t.Teams
	case t.Installation:
		return TeamsHidden
	}
	return TeamsReadable
}

type team struct {
	id        int64
	org, slug string
	members   map[string]string // lower-case login → membership state: active or pending
}

func teamKey(org, slug string) string { return strings.ToLower(org + "/" + slug) }

// AddTeam creates the team org/slug (or adds to it) with members, each an active member.
func (s *Server) AddTeam(org, slug string, members ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.teamLocked(org, slug)
	for _, m := range members {
		t.members[strings.ToLower(m)] = "active"
	}
}

// InviteToTeam makes login a pending member of org/slug: invited, not yet a member.
func (s *Server) InviteToTeam(org, slug, login string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.teamLocked(org, slug).members[strings.ToLower(login)] = "pending"
}

func (s *Server) teamLocked(org, slug string) *team {
	k := teamKey(org, slug)
	t := s.teams[k]
	if t == nil {
		t = &team{id: s.newID(), org: org, slug: slug, members: map[string]string{}}
		s.teams[k] = t
	}
	return t
}

func (s *Server) teamRoutes() {
	s.handle("GET /orgs/{org}/teams/{team_slug}", s.getTeam)
	s.handle("GET /orgs/{org}/teams/{team_slug}/memberships/{username}", s.getTeamMembership)
}

// readableTeamLocked is the team the request names, or it answers as GitHub does: 404 for a
// team that does not exist or that the token cannot see, 403 for a token refused outright.
func (s *Server) readableTeamLocked(w http.ResponseWriter, r *request, doc string) (*team, bool) {
	switch r.tok.teamAccess() {
	case TeamsForbidden:
		writeJSON(w, http.StatusForbidden, map[string]string{"message": "Resource not accessible by integration",
			"documentation_url": doc})
		return nil, false
	case TeamsHidden:
		writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found", "documentation_url": doc})
		return nil, false
	}
	t := s.teams[teamKey(r.param("org"), r.param("team_slug"))]
	if t == nil {
		writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found", "documentation_url": doc})
		return nil, false
	}
	return t, true
}

func (s *Server) getTeam(w http.ResponseWriter, r *request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.readableTeamLocked(w, r, "https://docs.github.com/rest/teams/teams#get-a-team-by-name")
	if !ok {
		return
	}
	active := 0
	for _, st := range t.members {
		if st == "active" {
			active++
		}
	}
	api := fmt.Sprintf("%s/organizations/%d/team/%d", s.srv.URL, 1, t.id)
	orgAPI := s.srv.URL + "/orgs/" + t.org
	writeJSON(w, http.StatusOK, map[string]any{
		"id": t.id, "node_id": fmt.Sprintf("T_%d", t.id), "url": api, "name": t.slug, "slug": t.slug,
		"description": nil, "permission": "pull", "privacy": "closed", "type": "organization",
		"html_url":    fmt.Sprintf("https://github.com/orgs/%s/teams/%s", t.org, t.slug),
		"members_url": api + "/members{/member}", "repositories_url": api + "/repos",
		"created_at": ts(epoch), "updated_at": ts(epoch), "members_count": active, "repos_count": 1,
		"organization": map[string]any{
			"login": t.org, "id": 1, "node_id": "O_1", "url": orgAPI, "repos_url": orgAPI + "/repos",
			"events_url": orgAPI + "/events", "hooks_url": orgAPI + "/hooks", "issues_url": orgAPI + "/issues",
			"members_url": orgAPI + "/members{/member}", "public_members_url": orgAPI + "/public_members{/member}",
			"avatar_url": "https://avatars.githubusercontent.com/u/1?v=4", "description": nil,
			"html_url": "https://github.com/" + t.org, "has_organization_projects": true,
			"has_repository_projects": true, "public_repos": 1, "public_gists": 0, "followers": 0,
			"following": 0, "type": "Organization", "created_at": ts(epoch), "updated_at": ts(epoch),
			"archived_at": nil,
		},
	})
}

// getTeamMembership is 404 for a login that is not a member, as GitHub answers: the same
// status as for a team the token cannot see.
func (s *Server) getTeamMembership(w http.ResponseWriter, r *request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	const doc = "https://docs.github.com/rest/teams/members#get-team-membership-for-a-user"
	t, ok := s.readableTeamLocked(w, r, doc)
	if !ok {
		return
	}
	login := r.param("username")
	state := t.members[strings.ToLower(login)]
	if state == "" {
		writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found", "documentation_url": doc})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"role": "member", "state": state,
		"url": fmt.Sprintf("%s/organizations/%d/team/%d/memberships/%s", s.srv.URL, 1, t.id, login)})
}
