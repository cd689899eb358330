package githubtest

import (
	"fmt"
	"net/http"
	"time"
	"unicode/utf8"
)

// Status is a commit status.
type Status struct {
	ID          int64
	SHA         string
	State       string
	Context     string
	Description string
	TargetURL   string
	Creator     User
	CreatedAt   time.Time
}

func (s *Server) statusRoutes() {
	s.handle("POST /repos/{owner}/{repo}/statuses/{sha}", s.createStatus)
	s.handle("GET /repos/{owner}/{repo}/commits/{ref}/statuses", s.listStatuses)
	s.handle("GET /repos/{owner}/{repo}/commits/{ref}/status", s.combinedStatus)
}

func (s *Server) statusJSON(st *Status) map[string]any {
	return map[string]any{"id": st.ID, "node_id": fmt.Sprintf("SC_%d", st.ID), "state": st.State,
		"context": st.Context, "description": st.Description, "target_url": st.TargetURL,
		"creator": s.userJSON(st.Creator), "created_at": ts(st.CreatedAt), "updated_at": ts(st.CreatedAt),
		"url": fmt.Sprintf("%s/statuses/%s", s.srv.URL, st.SHA), "avatar_url": nil}
}

func (s *Server) createStatus(w http.ResponseWriter, r *request) {
	var in struct {
		State       string `json:"state"`
		Context     string `json:"context"`
		Description string `json:"description"`
		TargetURL   string `json:"target_url"`
	}
	if !decode(w, r, &in) {
		return
	}
	if utf8.RuneCountInString(in.Description) > MaxStatusDescChars {
		writeValidation(w, "Status", "description", "description is too long (maximum is 140 characters)")
		return
	}
	if in.Context == "" {
		in.Context = "default"
	}
	sha := r.param("sha")
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(r.param("owner"), r.param("repo"))
	if !canWrite(rp.permission(r.tok)) {
		writeError(w, http.StatusForbidden, "Resource not accessible by integration")
		return
	}
	st := &Status{ID: s.newID(), SHA: sha, State: in.State, Context: in.Context, Description: in.Description,
		TargetURL: in.TargetURL, Creator: r.tok.User, CreatedAt: s.tick()}
	rp.statuses[sha] = append(rp.statuses[sha], st)
	writeJSON(w, http.StatusCreated, s.statusJSON(st))
}

// newestFirst is the statuses of ref, newest first, as GitHub lists them.
func newestFirst(rp *repo, ref string) []*Status {
	sts := rp.statuses[ref]
	out := make([]*Status, 0, len(sts))
	for i := len(sts) - 1; i >= 0; i-- {
		out = append(out, sts[i])
	}
	return out
}

func (s *Server) listStatuses(w http.ResponseWriter, r *request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(r.param("owner"), r.param("repo"))
	out := []map[string]any{}
	for _, st := range newestFirst(rp, r.param("ref")) {
		out = append(out, s.statusJSON(st))
	}
	writeJSON(w, http.StatusOK, page(w, r.Request, out))
}

// combinedStatus is the latest status per context and their combined state.
func (s *Server) combinedStatus(w http.ResponseWriter, r *request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(r.param("owner"), r.param("repo"))
	ref := r.param("ref")
	seen := map[string]bool{}
	latest := []map[string]any{}
	state := "success"
	for _, st := range newestFirst(rp, ref) {
		if seen[st.Context] {
			continue
		}
		seen[st.Context] = true
		latest = append(latest, s.statusJSON(st))
		switch {
		case st.State == "error" || st.State == "failure":
			state = "failure"
		case st.State == "pending" && state == "success":
			state = "pending"
		}
	}
	if len(latest) == 0 {
		state = "pending"
	}
	writeJSON(w, http.StatusOK, map[string]any{"state": state, "sha": ref, "total_count": len(latest),
		"statuses": latest, "repository": s.repoJSON(rp.fullName(), false), "commit_url": fmt.Sprintf("%s/repos/%s/commits/%s", s.srv.URL, rp.fullName(), ref),
		"url": fmt.Sprintf("%s/repos/%s/commits/%s/status", s.srv.URL, rp.fullName(), ref)})
}
