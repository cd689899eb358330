package githubtest

import (
	"fmt"
	"net/http"
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
	Fork    bool // head repository is a fork
	Files   []string
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
	p := is.pull.Pull
	headRepo := rp.fullName()
	if p.Fork {
		headRepo = p.Author.Login + "/" + rp.name
	}
	branch := func(ref, sha, full string) map[string]any {
		return map[string]any{"ref": ref, "sha": sha, "label": ref,
			"repo": map[string]any{"full_name": full, "fork": full != rp.fullName()}}
	}
	out := s.issueJSON(rp, is)
	delete(out, "pull_request")
	out["url"] = fmt.Sprintf("%s/repos/%s/pulls/%d", s.srv.URL, rp.fullName(), p.Number)
	out["head"] = branch(p.HeadRef, p.HeadSHA, headRepo)
	out["base"] = branch(p.BaseRef, p.BaseSHA, rp.fullName())
	out["merged"] = p.Merged
	out["draft"] = false
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) listPullFiles(w http.ResponseWriter, r *request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, is, ok := s.pullLocked(w, r)
	if !ok {
		return
	}
	out := []map[string]any{}
	for _, f := range is.pull.files {
		out = append(out, map[string]any{"sha": "0000000000000000000000000000000000000000", "filename": f,
			"status": "modified", "additions": 1, "deletions": 0, "changes": 1})
	}
	writeJSON(w, http.StatusOK, page(w, r.Request, out))
}

func (s *Server) listReviews(w http.ResponseWriter, r *request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, is, ok := s.pullLocked(w, r)
	if !ok {
		return
	}
	out := []map[string]any{}
	for _, rv := range is.pull.reviews {
		out = append(out, map[string]any{"id": rv.ID, "node_id": fmt.Sprintf("PRR_%d", rv.ID),
			"user": s.userJSON(rv.User), "body": rv.Body, "state": rv.State, "commit_id": rv.CommitID,
			"submitted_at": ts(rv.SubmittedAt), "author_association": "MEMBER"})
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
	writeJSON(w, http.StatusOK, map[string]any{"permission": legacy, "role_name": perm, "user": s.userJSON(u)})
}

func (s *Server) getUser(w http.ResponseWriter, r *request) {
	if r.tok.Installation {
		writeJSON(w, http.StatusForbidden, map[string]string{
			"message":           "Resource not accessible by integration",
			"documentation_url": "https://docs.github.com/rest/users/users#get-the-authenticated-user",
		})
		return
	}
	writeJSON(w, http.StatusOK, s.userJSON(r.tok.User))
}
