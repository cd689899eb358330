package githubtest

import (
	"strings"
	"testing"
)

// Team reads answer per token as GitHub does: GITHUB_TOKEN 404 (as if no team), a token
// refused outright 403, an App token with members: read and a member's token the truth.
func TestTeamReadsByToken(t *testing.T) {
	s := New(t, WithToken("ghs_forbidden", Token{User: Bot, Installation: true, Teams: TeamsForbidden}))
	s.AddTeam("acme", "Platform", "bob")
	s.InviteToTeam("acme", "platform", "carol")
	const member = "/orgs/acme/teams/platform/memberships/"
	tests := []struct {
		token, path string
		status      int
		body        string
	}{
		{AppToken, member + "BOB", 200, `"state":"active"`},
		{AppToken, member + "carol", 200, `"state":"pending"`},
		{AppToken, member + "alice", 404, "Not Found"},
		{AppToken, "/orgs/acme/teams/platform", 200, `"members_count":1`},
		{AppToken, "/orgs/acme/teams/other", 404, "Not Found"},
		{AliceToken, member + "bob", 200, `"role":"member"`},
		{InstallationToken, member + "bob", 404, "Not Found"},
		{InstallationToken, "/orgs/acme/teams/platform", 404, "Not Found"},
		{"ghs_forbidden", member + "bob", 403, "Resource not accessible by integration"},
	}
	for _, tt := range tests {
		r := call(t, s, tt.token, "GET", tt.path, nil)
		if r.status != tt.status || !strings.Contains(string(r.body), tt.body) {
			t.Errorf("%s GET %s = %d %s, want %d with %s", tt.token, tt.path, r.status, r.body, tt.status, tt.body)
		}
	}
}

func TestCommitPullsAndMerge(t *testing.T) {
	s := New(t)
	n := s.AddPull(repoName, Pull{HeadSHA: "h1", HeadRef: "feature"})
	var list []struct {
		Number         int
		MergedAt       *string `json:"merged_at"`
		MergeCommitSHA *string `json:"merge_commit_sha"`
	}
	call(t, s, InstallationToken, "GET", "/repos/acme/infra/commits/m1/pulls", nil).json(t, &list)
	if len(list) != 0 {
		t.Errorf("before the merge: %+v", list)
	}
	s.MergePull(repoName, n, "m1")
	for _, ref := range []string{"m1", "h1", "feature"} {
		call(t, s, InstallationToken, "GET", "/repos/acme/infra/commits/"+ref+"/pulls", nil).json(t, &list)
		if len(list) != 1 || list[0].Number != n || list[0].MergedAt == nil || *list[0].MergeCommitSHA != "m1" {
			t.Errorf("%s: %+v", ref, list)
		}
	}
	var pr struct {
		State  string
		Merged bool
	}
	call(t, s, InstallationToken, "GET", "/repos/acme/infra/pulls/1", nil).json(t, &pr)
	if pr.State != "closed" || !pr.Merged {
		t.Errorf("merged pull request %+v", pr)
	}
}
