package githubtest

import (
	"fmt"
	"net/url"
	"strings"
)

// The JSON objects GitHub embeds in many responses, with every field its description
// requires: responses are held to the description as requests are.

// userJSON is the simple-user object.
func (s *Server) userJSON(u User) map[string]any {
	api := s.srv.URL + "/users/" + url.PathEscape(u.Login)
	return map[string]any{
		"login": u.Login, "id": u.ID, "node_id": fmt.Sprintf("U_%d", u.ID), "type": u.Type,
		"site_admin": false, "url": api, "html_url": "https://github.com/" + url.PathEscape(u.Login),
		"avatar_url":          fmt.Sprintf("https://avatars.githubusercontent.com/u/%d?v=4", u.ID),
		"gravatar_id":         "",
		"events_url":          api + "/events{/privacy}",
		"followers_url":       api + "/followers",
		"following_url":       api + "/following{/other_user}",
		"gists_url":           api + "/gists{/gist_id}",
		"starred_url":         api + "/starred{/owner}{/repo}",
		"subscriptions_url":   api + "/subscriptions",
		"organizations_url":   api + "/orgs",
		"repos_url":           api + "/repos",
		"received_events_url": api + "/received_events",
	}
}

// repoURLs are the repository object's URL fields, relative to its API URL; the {…} parts
// are URI templates, as GitHub sends them.
var repoURLs = map[string]string{
	"archive_url": "/{archive_format}{/ref}", "assignees_url": "/assignees{/user}",
	"blobs_url": "/git/blobs{/sha}", "branches_url": "/branches{/branch}",
	"collaborators_url": "/collaborators{/collaborator}", "comments_url": "/comments{/number}",
	"commits_url": "/commits{/sha}", "compare_url": "/compare/{base}...{head}",
	"contents_url": "/contents/{+path}", "contributors_url": "/contributors",
	"deployments_url": "/deployments", "downloads_url": "/downloads", "events_url": "/events",
	"forks_url": "/forks", "git_commits_url": "/git/commits{/sha}", "git_refs_url": "/git/refs{/sha}",
	"git_tags_url": "/git/tags{/sha}", "hooks_url": "/hooks",
	"issue_comment_url": "/issues/comments{/number}", "issue_events_url": "/issues/events{/number}",
	"issues_url": "/issues{/number}", "keys_url": "/keys{/key_id}", "labels_url": "/labels{/name}",
	"languages_url": "/languages", "merges_url": "/merges", "milestones_url": "/milestones{/number}",
	"notifications_url": "/notifications{?since,all,participating}", "pulls_url": "/pulls{/number}",
	"releases_url": "/releases{/id}", "stargazers_url": "/stargazers", "statuses_url": "/statuses/{sha}",
	"subscribers_url": "/subscribers", "subscription_url": "/subscription", "tags_url": "/tags",
	"teams_url": "/teams", "trees_url": "/git/trees{/sha}",
}

// repoJSON is the full repository object of "owner/name", a fork when fork is set. The
// caller holds s.mu.
func (s *Server) repoJSON(fullName string, fork bool) map[string]any {
	owner, name := splitRepo(fullName)
	api := s.srv.URL + "/repos/" + fullName
	html := "https://github.com/" + fullName
	id := int64(0)
	for _, c := range strings.ToLower(fullName) {
		id = id*31 + int64(c)%1000003
	}
	id = id%900000 + 100000
	out := map[string]any{
		"id": id, "node_id": fmt.Sprintf("R_%d", id), "name": name, "full_name": fullName,
		"owner": s.userJSON(s.userLocked(owner)), "private": false, "fork": fork,
		"description": nil, "homepage": nil, "language": "HCL", "mirror_url": nil, "license": nil,
		"url": api, "html_url": html, "clone_url": html + ".git", "git_url": "git://github.com/" + fullName + ".git",
		"ssh_url": "git@github.com:" + fullName + ".git", "svn_url": html, "default_branch": "main",
		"forks": 0, "forks_count": 0, "open_issues": 0, "open_issues_count": 0, "size": 1,
		"stargazers_count": 0, "watchers": 0, "watchers_count": 0,
		"has_downloads": true, "has_issues": true, "has_projects": true, "has_wiki": true, "has_pages": false,
		"archived": false, "disabled": false,
		"pushed_at": ts(epoch), "created_at": ts(epoch), "updated_at": ts(epoch),
	}
	for k, v := range repoURLs {
		out[k] = api + v
	}
	return out
}
