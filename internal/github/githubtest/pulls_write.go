package githubtest

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"
)

// Pull requests listed, opened and updated (docs.github.com/rest/pulls/pulls).

func (s *Server) pullWriteRoutes() {
	s.handle("GET /repos/{owner}/{repo}/pulls", s.listPulls)
	s.handle("POST /repos/{owner}/{repo}/pulls", s.createPull)
	s.handle("PATCH /repos/{owner}/{repo}/pulls/{pull_number}", s.updatePull)
}

// listPulls lists pull requests, newest first (sort=created, direction=desc), filtered by
// state (default open), head ("owner:branch"; GitHub takes a bare branch as no match) and
// base, paged.
func (s *Server) listPulls(w http.ResponseWriter, r *request) {
	q := r.URL.Query()
	state := q.Get("state")
	if state == "" {
		state = "open"
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(r.param("owner"), r.param("repo"))
	out := []map[string]any{}
	for n := rp.nextNumber - 1; n >= 1; n-- {
		is := rp.issues[n]
		if is == nil || is.pull == nil || (state != "all" && is.State != state) {
			continue
		}
		p := is.pull.Pull
		owner := rp.owner
		if p.Fork {
			owner = p.Author.Login
		}
		if h := q.Get("head"); h != "" && !strings.EqualFold(h, owner+":"+p.HeadRef) {
			continue
		}
		if b := q.Get("base"); b != "" && b != p.BaseRef {
			continue
		}
		out = append(out, s.pullJSON(rp, is, false))
	}
	writeJSON(w, http.StatusOK, page(w, r.Request, out))
}

type pullInput struct {
	Title *string `json:"title"`
	Head  string  `json:"head"`
	Base  *string `json:"base"`
	Body  *string `json:"body"`
	State *string `json:"state"`
}

// createPull opens a pull request from a branch of the repository (head, or owner:head)
// into base, both existing branches; GitHub refuses a second open one for the same head
// and base ("A pull request already exists for owner:branch.") and one without commits.
func (s *Server) createPull(w http.ResponseWriter, r *request) {
	var in pullInput
	if !decode(w, r, &in) {
		return
	}
	if in.Title == nil || *in.Title == "" {
		writeValidation(w, "PullRequest", "title", "title wasn't supplied")
		return
	}
	if in.Body != nil && utf8.RuneCountInString(*in.Body) > MaxBodyChars {
		writeValidation(w, "PullRequest", "body", fmt.Sprintf("body is too long (maximum is %d characters)", MaxBodyChars))
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(r.param("owner"), r.param("repo"))
	head := in.Head
	if owner, branch, ok := strings.Cut(head, ":"); ok && strings.EqualFold(owner, rp.owner) {
		head = branch
	}
	base := ""
	if in.Base != nil {
		base = *in.Base
	}
	headSHA, okHead := rp.refs["refs/heads/"+head]
	baseSHA, okBase := rp.refs["refs/heads/"+base]
	switch {
	case !okHead:
		writeValidation(w, "PullRequest", "head", "invalid")
		return
	case !okBase:
		writeValidation(w, "PullRequest", "base", "invalid")
		return
	case headSHA == baseSHA || rp.isAncestorLocked(headSHA, baseSHA):
		writeValidation(w, "PullRequest", "base", "No commits between "+base+" and "+head)
		return
	}
	for _, is := range rp.issues {
		if p := is.pull; p != nil && is.State == "open" && !p.Fork && p.HeadRef == head && p.BaseRef == base {
			writeValidation(w, "PullRequest", "base", fmt.Sprintf("A pull request already exists for %s:%s.", rp.owner, head))
			return
		}
	}
	now := s.tick()
	p := Pull{Number: rp.nextNumber, Title: *in.Title, Author: r.tok.User, HeadSHA: headSHA, BaseSHA: baseSHA,
		HeadRef: head, BaseRef: base, State: "open"}
	rp.nextNumber++
	is := &issueState{Issue: Issue{Number: p.Number, Title: p.Title, State: "open", Author: p.Author, CreatedAt: now, UpdatedAt: now, Pull: true},
		pull: &pullState{Pull: p, files: s.changedFilesLocked(rp, baseSHA, headSHA)}}
	if in.Body != nil {
		is.Body = *in.Body
	}
	rp.issues[p.Number] = is
	writeJSON(w, http.StatusCreated, s.pullJSON(rp, is, true))
}

// updatePull edits a pull request's title, body or state; only its author or a writer may.
func (s *Server) updatePull(w http.ResponseWriter, r *request) {
	var in pullInput
	if !decode(w, r, &in) {
		return
	}
	if in.State != nil && !slices.Contains([]string{"open", "closed"}, *in.State) {
		writeValidation(w, "PullRequest", "state", "state is not included in the list")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rp, is, ok := s.pullLocked(w, r)
	if !ok {
		return
	}
	if is.Author.Login != r.tok.User.Login && !canWrite(rp.permission(r.tok)) {
		writeError(w, http.StatusForbidden, "Must have push access to edit a pull request written by someone else")
		return
	}
	if in.Title != nil {
		is.Title, is.pull.Title = *in.Title, *in.Title
	}
	if in.Body != nil {
		is.Body = *in.Body
	}
	if in.State != nil && !is.pull.Merged {
		is.State, is.pull.State = *in.State, *in.State
	}
	is.UpdatedAt = s.tick()
	writeJSON(w, http.StatusOK, s.pullJSON(rp, is, true))
}

func sortedStrings(s []string) []string {
	slices.Sort(s)
	return s
}

// PullView is a pull request as a test inspects it: its state and its body.
type PullView struct {
	Pull
	Body string
}

// Pulls lists the pull requests of "owner/name" in number order.
func (s *Server) Pulls(fullName string) []PullView {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(splitRepo(fullName))
	var out []PullView
	for n := 1; n < rp.nextNumber; n++ {
		if is := rp.issues[n]; is != nil && is.pull != nil {
			p := is.pull.Pull
			p.Title, p.State = is.Title, is.State
			out = append(out, PullView{Pull: p, Body: is.Body})
		}
	}
	return out
}

// ClosePull closes pull request number without merging it, as a person does in the web UI.
func (s *Server) ClosePull(fullName string, number int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	is := s.repoLocked(splitRepo(fullName)).issues[number]
	if is == nil || is.pull == nil {
		panic(fmt.Sprintf("githubtest: no pull request %d", number))
	}
	is.State, is.pull.State, is.UpdatedAt = "closed", "closed", s.tick()
}
