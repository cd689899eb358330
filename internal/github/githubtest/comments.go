package githubtest

import (
	"fmt"
	"net/http"
	"time"
	"unicode/utf8"
)

// Comment is an issue or pull request comment.
type Comment struct {
	ID        int64
	Number    int // of the issue or pull request
	Body      string
	Author    User
	CreatedAt time.Time
	UpdatedAt time.Time
	Edits     int // times edited through the API
}

func (s *Server) commentJSON(rp *repo, c *Comment) map[string]any {
	api := fmt.Sprintf("%s/repos/%s/issues", s.srv.URL, rp.fullName())
	kind := "issues"
	if is := rp.issues[c.Number]; is != nil && is.pull != nil {
		kind = "pull"
	}
	return map[string]any{
		"id": c.ID, "node_id": fmt.Sprintf("IC_%d", c.ID),
		"url":                fmt.Sprintf("%s/comments/%d", api, c.ID),
		"html_url":           fmt.Sprintf("https://github.com/%s/%s/%d#issuecomment-%d", rp.fullName(), kind, c.Number, c.ID),
		"issue_url":          fmt.Sprintf("%s/%d", api, c.Number),
		"body":               c.Body,
		"user":               s.userJSON(c.Author),
		"created_at":         ts(c.CreatedAt),
		"updated_at":         ts(c.UpdatedAt),
		"author_association": "CONTRIBUTOR",
	}
}

func (s *Server) commentRoutes() {
	const issue = "/repos/{owner}/{repo}/issues/{issue_number}/comments"
	const one = "/repos/{owner}/{repo}/issues/comments/{comment_id}"
	s.handle("GET "+issue, s.listComments)
	s.handle("POST "+issue, s.createComment)
	s.handle("GET "+one, s.getComment)
	s.handle("PATCH "+one, s.editComment)
	s.handle("DELETE "+one, s.deleteComment)
}

func bodyTooLong(body string) bool { return utf8.RuneCountInString(body) > MaxBodyChars }

const bodyTooLongMsg = "body is too long (maximum is 65536 characters)"

func (s *Server) listComments(w http.ResponseWriter, r *request) {
	n, ok := pathInt(w, r, "issue_number")
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(r.param("owner"), r.param("repo"))
	if rp.issues[int(n)] == nil {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	var out []map[string]any
	for _, c := range rp.comments {
		if c.Number == int(n) {
			out = append(out, s.commentJSON(rp, c))
		}
	}
	writeJSON(w, http.StatusOK, page(w, r.Request, out))
}

func (s *Server) createComment(w http.ResponseWriter, r *request) {
	n, ok := pathInt(w, r, "issue_number")
	if !ok {
		return
	}
	body, ok := commentBody(w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(r.param("owner"), r.param("repo"))
	if rp.issues[int(n)] == nil {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	now := s.tick()
	c := &Comment{ID: s.newID(), Number: int(n), Body: body, Author: r.tok.User, CreatedAt: now, UpdatedAt: now}
	rp.comments = append(rp.comments, c)
	writeJSON(w, http.StatusCreated, s.commentJSON(rp, c))
}

// commentBody reads a create or edit request's body field as GitHub checks it: present and
// within MaxBodyChars; otherwise it answers 422.
func commentBody(w http.ResponseWriter, r *request) (string, bool) {
	var in struct {
		Body *string `json:"body"`
	}
	if !decode(w, r, &in) {
		return "", false
	}
	if in.Body == nil {
		writeValidation(w, "IssueComment", "body", "body wasn't supplied")
		return "", false
	}
	if bodyTooLong(*in.Body) {
		writeValidation(w, "IssueComment", "body", bodyTooLongMsg)
		return "", false
	}
	return *in.Body, true
}

// findCommentLocked returns the comment, or answers 404.
func (s *Server) findCommentLocked(w http.ResponseWriter, r *request) (*repo, int, bool) {
	id, ok := pathInt(w, r, "comment_id")
	if !ok {
		return nil, 0, false
	}
	rp := s.repoLocked(r.param("owner"), r.param("repo"))
	for i, c := range rp.comments {
		if c.ID == id {
			return rp, i, true
		}
	}
	writeError(w, http.StatusNotFound, "Not Found")
	return nil, 0, false
}

func (s *Server) getComment(w http.ResponseWriter, r *request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp, i, ok := s.findCommentLocked(w, r)
	if !ok {
		return
	}
	writeJSON(w, http.StatusOK, s.commentJSON(rp, rp.comments[i]))
}

// mayChange is GitHub's rule: a comment's author, or someone with write access.
func mayChange(rp *repo, tok Token, c *Comment) bool {
	return c.Author.Login == tok.User.Login || canWrite(rp.permission(tok))
}

func (s *Server) editComment(w http.ResponseWriter, r *request) {
	body, ok := commentBody(w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rp, i, ok := s.findCommentLocked(w, r)
	if !ok {
		return
	}
	c := rp.comments[i]
	if !mayChange(rp, r.tok, c) {
		writeError(w, http.StatusForbidden, "Must have push access to edit a comment written by someone else")
		return
	}
	c.Body = body
	c.UpdatedAt = s.tick()
	c.Edits++
	writeJSON(w, http.StatusOK, s.commentJSON(rp, c))
}

func (s *Server) deleteComment(w http.ResponseWriter, r *request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp, i, ok := s.findCommentLocked(w, r)
	if !ok {
		return
	}
	if !mayChange(rp, r.tok, rp.comments[i]) {
		writeError(w, http.StatusForbidden, "Must have push access to delete a comment written by someone else")
		return
	}
	rp.comments = append(rp.comments[:i], rp.comments[i+1:]...)
	w.WriteHeader(http.StatusNoContent)
}
