package githubtest

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"
)

// The labels of one issue or pull request: added (creating missing labels, as GitHub does
// for writers) and removed.

// MaxIssueLabels is how many labels GitHub allows on one issue or pull request.
const MaxIssueLabels = 100

func (s *Server) labelRoutes() {
	s.handle("POST /repos/{owner}/{repo}/issues/{issue_number}/labels", s.addIssueLabels)
	s.handle("DELETE /repos/{owner}/{repo}/issues/{issue_number}/labels/{name}", s.removeIssueLabel)
	s.handle("GET /repos/{owner}/{repo}/issues/{issue_number}/labels", s.listIssueLabels)
}

func (s *Server) listIssueLabels(w http.ResponseWriter, r *request) {
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
	writeJSON(w, http.StatusOK, page(w, r.Request, s.issueLabelsJSON(rp, is)))
}

// addIssueLabels takes {"labels": [...]} (the bare array of older clients is not in
// GitHub's description: the contract refuses it before it gets here).
func (s *Server) addIssueLabels(w http.ResponseWriter, r *request) {
	n, ok := pathInt(w, r, "issue_number")
	if !ok {
		return
	}
	var obj struct {
		Labels []string `json:"labels"`
	}
	if !decode(w, r, &obj) {
		return
	}
	names := obj.Labels
	for _, l := range names {
		if utf8.RuneCountInString(l) > MaxLabelNameChars {
			writeValidation(w, "Label", "name", "name is too long (maximum is 50 characters)")
			return
		}
		if strings.TrimSpace(l) == "" {
			writeValidation(w, "Label", "name", "name can't be blank")
			return
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(r.param("owner"), r.param("repo"))
	is := writableIssueLocked(w, r, rp, int(n))
	if is == nil {
		return
	}
	merged := slices.Clone(is.Labels)
	for _, l := range names {
		if !slices.ContainsFunc(merged, func(h string) bool { return strings.EqualFold(h, l) }) {
			merged = append(merged, l)
		}
	}
	if len(merged) > MaxIssueLabels {
		writeValidation(w, "Issue", "labels", fmt.Sprintf("an issue can have at most %d labels", MaxIssueLabels))
		return
	}
	is.Labels = s.ensureLabelsLocked(rp, merged)
	is.UpdatedAt = s.tick()
	writeJSON(w, http.StatusOK, s.issueLabelsJSON(rp, is))
}

func (s *Server) removeIssueLabel(w http.ResponseWriter, r *request) {
	n, ok := pathInt(w, r, "issue_number")
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(r.param("owner"), r.param("repo"))
	is := writableIssueLocked(w, r, rp, int(n))
	if is == nil {
		return
	}
	name := r.param("name")
	i := slices.IndexFunc(is.Labels, func(h string) bool { return strings.EqualFold(h, name) })
	if i < 0 {
		writeError(w, http.StatusNotFound, "Label does not exist")
		return
	}
	is.Labels = slices.Delete(is.Labels, i, i+1)
	is.UpdatedAt = s.tick()
	writeJSON(w, http.StatusOK, s.issueLabelsJSON(rp, is))
}

func (s *Server) issueLabelsJSON(rp *repo, is *issueState) []map[string]any {
	out := []map[string]any{}
	for _, name := range is.Labels {
		if l := rp.label(name); l != nil {
			out = append(out, s.labelJSON(rp, l))
		}
	}
	return out
}

// PullLabels is a copy of the labels on pull request (or issue) number.
func (s *Server) PullLabels(fullName string, number int) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	is := s.repoLocked(splitRepo(fullName)).issues[number]
	if is == nil {
		return nil
	}
	return slices.Clone(is.Labels)
}

// SetLabels seeds the labels of issue or pull request number (which must exist), creating
// missing ones.
func (s *Server) SetLabels(fullName string, number int, labels []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(splitRepo(fullName))
	is := rp.issues[number]
	if is == nil {
		panic("githubtest: SetLabels on an issue or pull request that was not added")
	}
	is.Labels = s.ensureLabelsLocked(rp, labels)
}

// writableIssueLocked is issue n of rp when the request's token may write to it; otherwise
// it answers as GitHub does (404 for an unknown issue, 403 for a read-only token) and
// returns nil.
func writableIssueLocked(w http.ResponseWriter, r *request, rp *repo, n int) *issueState {
	is := rp.issues[n]
	if is == nil {
		writeError(w, http.StatusNotFound, "Not Found")
		return nil
	}
	if !canWrite(rp.permission(r.tok)) {
		writeError(w, http.StatusForbidden, "Resource not accessible by integration")
		return nil
	}
	return is
}
