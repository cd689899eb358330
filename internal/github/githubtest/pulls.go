package githubtest

import (
	"fmt"
	"net/http"
	"slices"
	"time"
)

// Pull is a pull request as seeded by a test.
type Pull struct {
	Number  int // 0: the repository's next number
	Title   string
	Author  User
	HeadSHA string
	BaseSHA string
	HeadRef string
	BaseRef string
	State   string // open (default) or closed
	Merged  bool
	// MergeCommitSHA is the commit the merge made (MergePull sets it). GitHub also reports
	// a test merge commit for an open pull request; the fake reports what is seeded.
	MergeCommitSHA string
	MergedAt       time.Time // MergePull sets it; zero with Merged means the seed time
	Fork           bool      // head repository is a fork
	Files          []string
}

// Review is a pull request review.
type Review struct {
	ID          int64
	User        User
	State       string // APPROVED, CHANGES_REQUESTED, COMMENTED, DISMISSED, PENDING
	CommitID    string
	Body        string
	SubmittedAt time.Time
}

func (s *Server) pullRoutes() {
	s.handle("GET /repos/{owner}/{repo}/pulls/{pull_number}", s.getPull)
	s.handle("GET /repos/{owner}/{repo}/pulls/{pull_number}/files", s.listPullFiles)
	s.handle("GET /repos/{owner}/{repo}/commits/{commit_sha}/pulls", s.listCommitPulls)
	s.handle("GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews", s.listReviews)
	s.handle("GET /repos/{owner}/{repo}/collaborators/{username}/permission", s.getPermission)
	s.handle("GET /user", s.getUser)
}

func (s *Server) pullLocked(w http.ResponseWriter, r *request) (*repo, *issueState, bool) {
	n, ok := pathInt(w, r, "pull_number")
	if !ok {
		return nil, nil, false
	}
	rp := s.repoLocked(r.param("owner"), r.param("repo"))
	is := rp.issues[int(n)]
	if is == nil || is.pull == nil {
		writeError(w, http.StatusNotFound, "Not Found")
		return nil, nil, false
	}
	return rp, is, true
}

func (s *Server) getPull(w http.ResponseWriter, r *request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp, is, ok := s.pullLocked(w, r)
	if !ok {
		return
	}
	writeJSON(w, http.StatusOK, s.pullJSON(rp, is, true))
}

// listCommitPulls lists the pull requests associated with a commit: those whose head is the
// commit (or, as GitHub allows, the branch named commit_sha) and the merged ones whose merge
// commit it is or whose merge brought it into the base branch ("the merged pull request that
// introduced the commit to the repository").
func (s *Server) listCommitPulls(w http.ResponseWriter, r *request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(r.param("owner"), r.param("repo"))
	sha := r.param("commit_sha")
	out := []map[string]any{}
	for n := 1; n < rp.nextNumber; n++ {
		is := rp.issues[n]
		if is == nil || is.pull == nil {
			continue
		}
		p := is.pull.Pull
		if p.HeadSHA == sha || (p.Merged && p.MergeCommitSHA == sha) || p.HeadRef == sha ||
			(p.Merged && slices.Contains(is.pull.introduced, sha)) {
			out = append(out, s.pullJSON(rp, is, false))
		}
	}
	writeJSON(w, http.StatusOK, page(w, r.Request, out))
}

// pullJSON is the pull-request-simple object, or with full the pull-request object of
// GET /pulls/{pull_number}. The caller holds s.mu.
func (s *Server) pullJSON(rp *repo, is *issueState, full bool) map[string]any {
	p := is.pull.Pull
	headRepo := rp.fullName()
	if p.Fork {
		headRepo = p.Author.Login + "/" + rp.name
	}
	branch := func(ref, sha, fullName string) map[string]any {
		owner, _ := splitRepo(fullName)
		return map[string]any{"ref": ref, "sha": sha, "label": owner + ":" + ref,
			"user": s.userJSON(s.userLocked(owner)), "repo": s.repoJSON(fullName, fullName != rp.fullName())}
	}
	api := fmt.Sprintf("%s/repos/%s", s.srv.URL, rp.fullName())
	self := fmt.Sprintf("%s/pulls/%d", api, p.Number)
	html := fmt.Sprintf("https://github.com/%s/pull/%d", rp.fullName(), p.Number)
	out := s.issueJSON(rp, is)
	delete(out, "pull_request")
	delete(out, "repository_url")
	delete(out, "labels_url")
	delete(out, "events_url")
	delete(out, "comments")
	links := map[string]string{
		"self": self, "html": html, "issue": fmt.Sprintf("%s/issues/%d", api, p.Number),
		"comments":        fmt.Sprintf("%s/issues/%d/comments", api, p.Number),
		"review_comments": self + "/comments", "review_comment": api + "/pulls/comments{/number}",
		"commits": self + "/commits", "statuses": fmt.Sprintf("%s/statuses/%s", api, p.HeadSHA),
	}
	hrefs := map[string]any{}
	for k, v := range links {
		hrefs[k] = map[string]string{"href": v}
		if k != "self" {
			out[k+"_url"] = v // html_url, issue_url, comments_url, …
		}
	}
	out["_links"] = hrefs
	out["url"] = self
	out["diff_url"], out["patch_url"] = html+".diff", html+".patch"
	out["head"] = branch(p.HeadRef, p.HeadSHA, headRepo)
	out["base"] = branch(p.BaseRef, p.BaseSHA, rp.fullName())
	out["merge_commit_sha"] = nil
	if p.MergeCommitSHA != "" {
		out["merge_commit_sha"] = p.MergeCommitSHA
	}
	out["merged_at"] = nil
	if p.Merged {
		out["merged_at"] = ts(p.MergedAt)
		out["closed_at"] = ts(p.MergedAt)
	}
	out["draft"] = false
	out["auto_merge"] = nil
	out["requested_reviewers"], out["requested_teams"] = []any{}, []any{}
	if full {
		out["merged"] = p.Merged
		out["merged_by"] = nil
		if p.Merged {
			out["merged_by"] = s.userJSON(Bot)
		}
		out["mergeable"], out["mergeable_state"], out["rebaseable"] = nil, "unknown", nil
		out["maintainer_can_modify"] = false
		out["comments"] = 0
		out["review_comments"] = 0
		out["commits"] = 1
		out["additions"], out["deletions"], out["changed_files"] = len(is.pull.files), 0, len(is.pull.files)
	}
	return out
}

func (s *Server) listPullFiles(w http.ResponseWriter, r *request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp, is, ok := s.pullLocked(w, r)
	if !ok {
		return
	}
	out := []map[string]any{}
	head := is.pull.HeadSHA
	for _, f := range is.pull.files {
		blob := fmt.Sprintf("https://github.com/%s/blob/%s/%s", rp.fullName(), head, f)
		out = append(out, map[string]any{"sha": "0000000000000000000000000000000000000000", "filename": f,
			"status": "modified", "additions": 1, "deletions": 0, "changes": 1, "blob_url": blob,
			"raw_url":      fmt.Sprintf("https://github.com/%s/raw/%s/%s", rp.fullName(), head, f),
			"contents_url": fmt.Sprintf("%s/repos/%s/contents/%s?ref=%s", s.srv.URL, rp.fullName(), f, head)})
	}
	writeJSON(w, http.StatusOK, page(w, r.Request, out))
}

func (s *Server) listReviews(w http.ResponseWriter, r *request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp, is, ok := s.pullLocked(w, r)
	if !ok {
		return
	}
	out := []map[string]any{}
	html := fmt.Sprintf("https://github.com/%s/pull/%d", rp.fullName(), is.Number)
	api := fmt.Sprintf("%s/repos/%s/pulls/%d", s.srv.URL, rp.fullName(), is.Number)
	for _, rv := range is.pull.reviews {
		link := fmt.Sprintf("%s#pullrequestreview-%d", html, rv.ID)
		out = append(out, map[string]any{"id": rv.ID, "node_id": fmt.Sprintf("PRR_%d", rv.ID),
			"user": s.userJSON(rv.User), "body": rv.Body, "state": rv.State, "commit_id": rv.CommitID,
			"submitted_at": ts(rv.SubmittedAt), "author_association": "MEMBER",
			"html_url": link, "pull_request_url": api,
			"_links": map[string]any{"html": map[string]string{"href": link}, "pull_request": map[string]string{"href": api}}})
	}
	writeJSON(w, http.StatusOK, page(w, r.Request, out))
}

func (s *Server) getPermission(w http.ResponseWriter, r *request) {
	login := r.param("username")
	u := s.userByLogin(login)
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(r.param("owner"), r.param("repo"))
	perm, ok := rp.perms[login]
	if !ok {
		perm = "none"
	}
	// GitHub reports maintain as write and triage as read in "permission".
	legacy := map[string]string{"maintain": "write", "triage": "read"}[perm]
	if legacy == "" {
		legacy = perm
	}
	collab := s.userJSON(u)
	collab["role_name"] = perm
	collab["permissions"] = map[string]bool{"admin": perm == "admin", "maintain": perm == "admin" || perm == "maintain",
		"push": canWrite(perm), "triage": canWrite(perm) || perm == "triage", "pull": perm != "none"}
	writeJSON(w, http.StatusOK, map[string]any{"permission": legacy, "role_name": perm, "user": collab})
}

func (s *Server) getUser(w http.ResponseWriter, r *request) {
	if r.tok.Installation {
		writeJSON(w, http.StatusForbidden, map[string]string{
			"message":           "Resource not accessible by integration",
			"documentation_url": "https://docs.github.com/rest/users/users#get-the-authenticated-user",
		})
		return
	}
	// The authenticated user's public profile: GitHub's description tells the two views
	// apart by user_view_type.
	u := s.userJSON(r.tok.User)
	for k, v := range map[string]any{"user_view_type": "public", "name": nil, "company": nil, "blog": nil,
		"location": nil, "email": nil, "hireable": nil, "bio": nil, "public_repos": 0, "public_gists": 0,
		"followers": 0, "following": 0, "created_at": ts(epoch), "updated_at": ts(epoch)} {
		u[k] = v
	}
	writeJSON(w, http.StatusOK, u)
}
