package githubtest

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Issue is an issue or, when Pull is set, the issue side of a pull request.
type Issue struct {
	Number    int
	Title     string
	Body      string
	State     string // open or closed
	Labels    []string
	Author    User
	CreatedAt time.Time
	UpdatedAt time.Time
	Pull      bool
}

// Label is a repository label.
type Label struct {
	ID          int64
	Name        string
	Color       string
	Description string
}

func (s *Server) issueJSON(rp *repo, is *issueState) map[string]any {
	labels := []map[string]any{}
	for _, name := range is.Labels {
		if l := rp.label(name); l != nil {
			labels = append(labels, s.labelJSON(rp, l))
		}
	}
	api := fmt.Sprintf("%s/repos/%s", s.srv.URL, rp.fullName())
	out := map[string]any{
		"id": int64(is.Number) + 500000, "node_id": fmt.Sprintf("I_%d", is.Number), "number": is.Number,
		"url":      fmt.Sprintf("%s/issues/%d", api, is.Number),
		"html_url": fmt.Sprintf("https://github.com/%s/issues/%d", rp.fullName(), is.Number),
		"title":    is.Title, "body": is.Body, "state": is.State, "labels": labels,
		"user": s.userJSON(is.Author), "locked": false, "comments": 0,
		"created_at": ts(is.CreatedAt), "updated_at": ts(is.UpdatedAt), "closed_at": nil,
		"author_association": "CONTRIBUTOR", "assignee": nil, "assignees": []any{}, "milestone": nil,
		"repository_url": api,
		"comments_url":   fmt.Sprintf("%s/issues/%d/comments", api, is.Number),
		"events_url":     fmt.Sprintf("%s/issues/%d/events", api, is.Number),
		"labels_url":     fmt.Sprintf("%s/issues/%d/labels{/name}", api, is.Number),
	}
	if is.Pull {
		html := fmt.Sprintf("https://github.com/%s/pull/%d", rp.fullName(), is.Number)
		pr := map[string]any{"url": fmt.Sprintf("%s/pulls/%d", api, is.Number), "html_url": html,
			"diff_url": html + ".diff", "patch_url": html + ".patch", "merged_at": nil}
		if is.pull != nil && is.pull.Merged {
			pr["merged_at"] = ts(is.pull.MergedAt)
		}
		out["pull_request"] = pr
		out["html_url"] = html
	}
	return out
}

func (s *Server) labelJSON(rp *repo, l *Label) map[string]any {
	return map[string]any{
		"id": l.ID, "node_id": fmt.Sprintf("LA_%d", l.ID), "name": l.Name, "color": l.Color,
		"description": l.Description, "default": false,
		"url": fmt.Sprintf("%s/repos/%s/labels/%s", s.srv.URL, rp.fullName(), l.Name),
	}
}

func (r *repo) label(name string) *Label {
	for _, l := range r.labels {
		if strings.EqualFold(l.Name, name) {
			return l
		}
	}
	return nil
}

func (s *Server) issueRoutes() {
	s.handle("GET /repos/{owner}/{repo}/issues", s.listIssues)
	s.handle("POST /repos/{owner}/{repo}/issues", s.createIssue)
	s.handle("GET /repos/{owner}/{repo}/issues/{issue_number}", s.getIssue)
	s.handle("PATCH /repos/{owner}/{repo}/issues/{issue_number}", s.editIssue)
	s.handle("GET /repos/{owner}/{repo}/labels", s.listLabels)
	s.handle("POST /repos/{owner}/{repo}/labels", s.createLabel)
}

type issueInput struct {
	Title  *string   `json:"title"`
	Body   *string   `json:"body"`
	State  *string   `json:"state"`
	Labels *[]string `json:"labels"`
}

// checkIssue answers 422 for what GitHub refuses in an issue.
func checkIssue(w http.ResponseWriter, in issueInput) bool {
	if in.Title != nil && utf8.RuneCountInString(*in.Title) > MaxIssueTitleChars {
		writeValidation(w, "Issue", "title", "title is too long (maximum is 256 characters)")
		return false
	}
	if in.Body != nil && bodyTooLong(*in.Body) {
		writeValidation(w, "Issue", "body", bodyTooLongMsg)
		return false
	}
	if in.Labels != nil {
		for _, l := range *in.Labels {
			if utf8.RuneCountInString(l) > MaxLabelNameChars {
				writeValidation(w, "Label", "name", "name is too long (maximum is 50 characters)")
				return false
			}
		}
	}
	return true
}

// ensureLabelsLocked creates the labels an issue names, as GitHub does for writers.
func (s *Server) ensureLabelsLocked(rp *repo, names []string) []string {
	var out []string
	for _, n := range names {
		l := rp.label(n)
		if l == nil {
			l = &Label{ID: s.newID(), Name: n, Color: "ededed"}
			rp.labels = append(rp.labels, l)
		}
		if !slices.Contains(out, l.Name) {
			out = append(out, l.Name)
		}
	}
	return out
}

func (s *Server) listIssues(w http.ResponseWriter, r *request) {
	q := r.URL.Query()
	state := q.Get("state")
	if state == "" {
		state = "open"
	}
	var want []string
	if v := q.Get("labels"); v != "" {
		want = strings.Split(v, ",")
	}
	creator := q.Get("creator")
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(r.param("owner"), r.param("repo"))
	var numbers []int
	for n := range rp.issues {
		numbers = append(numbers, n)
	}
	slices.Sort(numbers)
	slices.Reverse(numbers) // newest first, GitHub's default sort
	var out []map[string]any
	for _, n := range numbers {
		is := rp.issues[n]
		if state != "all" && is.State != state {
			continue
		}
		if creator != "" && is.Author.Login != creator {
			continue
		}
		if !hasLabels(is.Labels, want) {
			continue
		}
		out = append(out, s.issueJSON(rp, is))
	}
	writeJSON(w, http.StatusOK, page(w, r.Request, out))
}

func hasLabels(have, want []string) bool {
	for _, w := range want {
		if !slices.ContainsFunc(have, func(h string) bool { return strings.EqualFold(h, strings.TrimSpace(w)) }) {
			return false
		}
	}
	return true
}

func (s *Server) createIssue(w http.ResponseWriter, r *request) {
	var in issueInput
	if !decode(w, r, &in) || !checkIssue(w, in) {
		return
	}
	if in.Title == nil || *in.Title == "" {
		writeValidation(w, "Issue", "title", "title wasn't supplied")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(r.param("owner"), r.param("repo"))
	now := s.tick()
	is := &issueState{Issue: Issue{Number: rp.nextNumber, Title: *in.Title, State: "open", Author: r.tok.User,
		CreatedAt: now, UpdatedAt: now}}
	rp.nextNumber++
	if in.Body != nil {
		is.Body = *in.Body
	}
	if in.Labels != nil {
		is.Labels = s.ensureLabelsLocked(rp, *in.Labels)
	}
	rp.issues[is.Number] = is
	writeJSON(w, http.StatusCreated, s.issueJSON(rp, is))
}

func (s *Server) getIssue(w http.ResponseWriter, r *request) {
	n, ok := pathInt(w, r, "issue_number")
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(r.param("owner"), r.param("repo"))
	is := rp.issues[int(n)]
	if is == nil {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	writeJSON(w, http.StatusOK, s.issueJSON(rp, is))
}

func (s *Server) editIssue(w http.ResponseWriter, r *request) {
	n, ok := pathInt(w, r, "issue_number")
	if !ok {
		return
	}
	var in issueInput
	if !decode(w, r, &in) || !checkIssue(w, in) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(r.param("owner"), r.param("repo"))
	is := rp.issues[int(n)]
	if is == nil {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	if is.Author.Login != r.tok.User.Login && !canWrite(rp.permission(r.tok)) {
		writeError(w, http.StatusForbidden, "Must have push access to edit an issue written by someone else")
		return
	}
	if in.Title != nil {
		is.Title = *in.Title
	}
	if in.Body != nil {
		is.Body = *in.Body
	}
	if in.State != nil {
		is.State = *in.State
	}
	if in.Labels != nil {
		is.Labels = s.ensureLabelsLocked(rp, *in.Labels)
	}
	is.UpdatedAt = s.tick()
	writeJSON(w, http.StatusOK, s.issueJSON(rp, is))
}

func (s *Server) listLabels(w http.ResponseWriter, r *request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(r.param("owner"), r.param("repo"))
	out := []map[string]any{}
	for _, l := range rp.labels {
		out = append(out, s.labelJSON(rp, l))
	}
	writeJSON(w, http.StatusOK, page(w, r.Request, out))
}

func (s *Server) createLabel(w http.ResponseWriter, r *request) {
	var in struct {
		Name        string `json:"name"`
		Color       string `json:"color"`
		Description string `json:"description"`
	}
	if !decode(w, r, &in) {
		return
	}
	if utf8.RuneCountInString(in.Name) > MaxLabelNameChars {
		writeValidation(w, "Label", "name", "name is too long (maximum is 50 characters)")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(r.param("owner"), r.param("repo"))
	if !canWrite(rp.permission(r.tok)) {
		writeError(w, http.StatusForbidden, "Must have push access to create a label")
		return
	}
	if rp.label(in.Name) != nil {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "Validation Failed",
			"errors": []map[string]string{{"resource": "Label", "code": "already_exists", "field": "name"}}})
		return
	}
	if in.Color == "" {
		in.Color = "ededed"
	}
	l := &Label{ID: s.newID(), Name: in.Name, Color: in.Color, Description: in.Description}
	rp.labels = append(rp.labels, l)
	writeJSON(w, http.StatusCreated, s.labelJSON(rp, l))
}
