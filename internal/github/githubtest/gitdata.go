package githubtest

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// The Git data API (docs.github.com/rest/git): one reference read, created and moved;
// trees and commits written on the objects a test pushed (gitobjects.go).

func (s *Server) gitDataRoutes() {
	s.handle("GET /repos/{owner}/{repo}/git/ref/{ref}", s.getRef)
	s.handle("POST /repos/{owner}/{repo}/git/refs", s.createRef)
	s.handle("PATCH /repos/{owner}/{repo}/git/refs/{ref}", s.updateRef)
	s.handle("DELETE /repos/{owner}/{repo}/git/refs/{ref}", s.deleteRef)
	s.handle("GET /repos/{owner}/{repo}/git/commits/{commit_sha}", s.getCommit)
	s.handle("POST /repos/{owner}/{repo}/git/trees", s.createTree)
	s.handle("POST /repos/{owner}/{repo}/git/commits", s.createCommit)
}

func (s *Server) refJSON(rp *repo, name string) map[string]any {
	api := fmt.Sprintf("%s/repos/%s/git", s.srv.URL, rp.fullName())
	sha := rp.refs[name]
	return map[string]any{"ref": name, "node_id": "REF_" + strings.ReplaceAll(name, "/", "_"), "url": api + "/" + name,
		"object": map[string]any{"type": "commit", "sha": sha, "url": api + "/commits/" + sha}}
}

// refParam is the {ref} of the path (heads/…, its slashes plain or escaped) as a full name.
func refParam(r *request) (string, bool) {
	ref, err := url.PathUnescape(r.param("ref"))
	if err != nil || ref == "" {
		return "", false
	}
	return "refs/" + strings.TrimPrefix(ref, "refs/"), true
}

// getRef answers one reference; a missing one is 404 (GitHub's "Not Found").
func (s *Server) getRef(w http.ResponseWriter, r *request) {
	name, ok := refParam(r)
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(r.param("owner"), r.param("repo"))
	if _, found := rp.refs[name]; !ok || !found {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	writeJSON(w, http.StatusOK, s.refJSON(rp, name))
}

// createRef creates a reference: a name not of the form refs/x/y is refused, as is an
// existing name ("Reference already exists") or a commit GitHub does not have.
func (s *Server) createRef(w http.ResponseWriter, r *request) {
	var in struct{ Ref, SHA string }
	if !decode(w, r, &in) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(r.param("owner"), r.param("repo"))
	switch _, exists := rp.refs[in.Ref]; {
	case !strings.HasPrefix(in.Ref, "refs/") || strings.Count(in.Ref, "/") < 2:
		writeError(w, http.StatusUnprocessableEntity, "Reference name is invalid")
		return
	case exists:
		writeError(w, http.StatusUnprocessableEntity, "Reference already exists")
		return
	}
	if _, ok := rp.objectLocked(in.SHA, "commit"); !ok {
		writeError(w, http.StatusUnprocessableEntity, "Object does not exist")
		return
	}
	if rp.refs == nil {
		rp.refs = map[string]string{}
	}
	rp.refs[in.Ref] = in.SHA
	writeJSON(w, http.StatusCreated, s.refJSON(rp, in.Ref))
}

// updateRef moves a reference: without force only forward ("Update is not a fast
// forward"). An open pull request from the branch follows it, as on GitHub.
func (s *Server) updateRef(w http.ResponseWriter, r *request) {
	var in struct {
		SHA   string
		Force bool
	}
	if !decode(w, r, &in) {
		return
	}
	name, ok := refParam(r)
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(r.param("owner"), r.param("repo"))
	old, found := rp.refs[name]
	switch _, isCommit := rp.objectLocked(in.SHA, "commit"); {
	case !ok || !found:
		writeError(w, http.StatusUnprocessableEntity, "Reference does not exist")
		return
	case !isCommit:
		writeError(w, http.StatusUnprocessableEntity, "Object does not exist")
		return
	case !in.Force && !rp.isAncestorLocked(old, in.SHA):
		writeError(w, http.StatusUnprocessableEntity, "Update is not a fast forward")
		return
	}
	rp.refs[name] = in.SHA
	s.movePullHeadsLocked(rp, name, in.SHA)
	writeJSON(w, http.StatusOK, s.refJSON(rp, name))
}

// deleteRef deletes a reference: 204, or 422 "Reference does not exist".
func (s *Server) deleteRef(w http.ResponseWriter, r *request) {
	name, ok := refParam(r)
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(r.param("owner"), r.param("repo"))
	if _, found := rp.refs[name]; !ok || !found {
		writeError(w, http.StatusUnprocessableEntity, "Reference does not exist")
		return
	}
	delete(rp.refs, name)
	w.WriteHeader(http.StatusNoContent)
}

// gitUser is "Name <email> 1700000000 +0000" as the git-user object.
func gitUser(line string) map[string]any {
	name, rest, _ := strings.Cut(line, " <")
	email, when, _ := strings.Cut(rest, "> ")
	var secs int64
	fmt.Sscan(when, &secs)
	return map[string]any{"name": name, "email": email, "date": ts(time.Unix(secs, 0))}
}

func (s *Server) commitJSON(rp *repo, sha string, c gitCommit) map[string]any {
	api := fmt.Sprintf("%s/repos/%s/git", s.srv.URL, rp.fullName())
	parents := []map[string]any{}
	for _, p := range c.parents {
		parents = append(parents, map[string]any{"sha": p, "url": api + "/commits/" + p,
			"html_url": fmt.Sprintf("https://github.com/%s/commit/%s", rp.fullName(), p)})
	}
	return map[string]any{"sha": sha, "node_id": "C_" + sha, "url": api + "/commits/" + sha,
		"html_url": fmt.Sprintf("https://github.com/%s/commit/%s", rp.fullName(), sha),
		"author":   gitUser(c.author), "committer": gitUser(c.committer), "message": c.message,
		"tree": map[string]any{"sha": c.tree, "url": api + "/trees/" + c.tree}, "parents": parents,
		"verification": map[string]any{"verified": false, "reason": "unsigned", "signature": nil, "payload": nil, "verified_at": nil}}
}

func (s *Server) getCommit(w http.ResponseWriter, r *request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(r.param("owner"), r.param("repo"))
	sha := r.param("commit_sha")
	o, ok := rp.objectLocked(sha, "commit")
	if !ok {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	c, err := parseCommit(o.data)
	if err != nil {
		writeError(w, http.StatusConflict, "Git Repository is empty.")
		return
	}
	writeJSON(w, http.StatusOK, s.commitJSON(rp, sha, c))
}

type treeInput struct {
	Path    string  `json:"path"`
	Mode    string  `json:"mode"`
	Type    string  `json:"type"`
	SHA     *string `json:"sha"`
	Content *string `json:"content"`
}

// createTree writes a tree: base_tree's entries (none without it) with each entry's path
// set to its sha, or to a blob of its content, or deleted (sha null); a missing base tree
// or object is refused.
func (s *Server) createTree(w http.ResponseWriter, r *request) {
	var in struct {
		BaseTree string      `json:"base_tree"`
		Tree     []treeInput `json:"tree"`
	}
	if !decode(w, r, &in) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(r.param("owner"), r.param("repo"))
	tree := in.BaseTree
	if tree != "" {
		if _, ok := rp.objectLocked(tree, "tree"); !ok {
			writeValidation(w, "Tree", "base_tree", "base_tree is not a valid tree oid")
			return
		}
	}
	for _, e := range in.Tree {
		if e.Path == "" || strings.HasPrefix(e.Path, "/") || strings.Contains(e.Path, "//") {
			writeValidation(w, "Tree", "path", "tree.path contains a malformed path component")
			return
		}
		sha := ""
		switch {
		case e.Content != nil && e.SHA != nil:
			writeValidation(w, "Tree", "tree", "Must supply either tree.sha or tree.content, not both")
			return
		case e.Content != nil:
			sha = rp.putObjectLocked("blob", []byte(*e.Content))
		case e.SHA != nil:
			if _, ok := rp.objectLocked(*e.SHA, e.Type); !ok {
				writeValidation(w, "Tree", "sha", "tree.sha "+*e.SHA+" is not a valid "+e.Type)
				return
			}
			sha = *e.SHA
		}
		next, err := rp.writePathLocked(tree, strings.Split(e.Path, "/"), treeEntry{mode: e.Mode, sha: sha})
		if err != nil {
			writeValidation(w, "Tree", "tree", err.Error())
			return
		}
		tree = next
	}
	if tree == "" {
		tree = rp.putObjectLocked("tree", nil)
	}
	writeJSON(w, http.StatusCreated, s.treeJSON(rp, tree))
}

func (s *Server) treeJSON(rp *repo, sha string) map[string]any {
	api := fmt.Sprintf("%s/repos/%s/git", s.srv.URL, rp.fullName())
	o, _ := rp.objectLocked(sha, "tree")
	entries, _ := parseTree(o.data)
	out := []map[string]any{}
	for _, e := range entries {
		kind := e.typ()
		mode := e.mode
		if e.isTree() {
			mode = "040000"
		}
		item := map[string]any{"path": e.name, "mode": mode, "type": kind, "sha": e.sha, "url": api + "/" + kind + "s/" + e.sha}
		if b, ok := rp.objectLocked(e.sha, "blob"); ok {
			item["size"] = len(b.data)
		}
		out = append(out, item)
	}
	return map[string]any{"sha": sha, "url": api + "/trees/" + sha, "tree": out, "truncated": false}
}

// createCommit writes a commit of tree on parents, both of which must exist. Without an
// author it is the token's user, now; the committer defaults to the author.
func (s *Server) createCommit(w http.ResponseWriter, r *request) {
	type person struct{ Name, Email, Date string }
	var in struct {
		Message   *string
		Tree      string
		Parents   []string
		Author    *person
		Committer *person
	}
	if !decode(w, r, &in) {
		return
	}
	if in.Message == nil {
		writeValidation(w, "Commit", "message", "message wasn't supplied")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(r.param("owner"), r.param("repo"))
	if _, ok := rp.objectLocked(in.Tree, "tree"); !ok {
		writeValidation(w, "Commit", "tree", "Tree SHA does not exist")
		return
	}
	for _, p := range in.Parents {
		if _, ok := rp.objectLocked(p, "commit"); !ok {
			writeValidation(w, "Commit", "parents", "Parent SHA does not exist or is not a commit object")
			return
		}
	}
	now := s.tick()
	who := func(p *person, def string) string {
		if p == nil {
			return def
		}
		t := now
		if d, err := time.Parse(time.RFC3339, p.Date); err == nil {
			t = d
		}
		return fmt.Sprintf("%s <%s> %d +0000", p.Name, p.Email, t.Unix())
	}
	author := who(in.Author, fmt.Sprintf("%s <%d+%s@users.noreply.github.com> %d +0000", r.tok.User.Login, r.tok.User.ID, r.tok.User.Login, now.Unix()))
	c := gitCommit{tree: in.Tree, parents: in.Parents, author: author, committer: who(in.Committer, author), message: *in.Message}
	sha := rp.putObjectLocked("commit", formatCommit(c))
	writeJSON(w, http.StatusCreated, s.commitJSON(rp, sha, c))
}

// changedFilesLocked are the paths whose blobs differ between two commits' trees. The
// caller holds s.mu.
func (s *Server) changedFilesLocked(rp *repo, base, head string) []string {
	tree := func(sha string) map[string]string {
		out := map[string]string{}
		if o, ok := rp.objectLocked(sha, "commit"); ok {
			if c, err := parseCommit(o.data); err == nil {
				rp.flattenLocked(c.tree, "", out)
			}
		}
		return out
	}
	a, b := tree(base), tree(head)
	var out []string
	for p, sha := range b {
		if a[p] != sha {
			out = append(out, p)
		}
	}
	for p := range a {
		if _, ok := b[p]; !ok {
			out = append(out, p)
		}
	}
	return sortedStrings(out)
}
