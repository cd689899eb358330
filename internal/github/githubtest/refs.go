package githubtest

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// Git references: the fake knows only those a test sets (a merge queue's branches, a
// release's tag).

func (s *Server) refRoutes() {
	s.handle("GET /repos/{owner}/{repo}/git/matching-refs/{ref}", s.listMatchingRefs)
	s.handle("GET /repos/{owner}/{repo}/tags", s.listTags)
}

// SetRef points the reference ref (refs/heads/…) of "owner/name" at sha, creating it.
func (s *Server) SetRef(fullName, ref, sha string) {
	if !strings.HasPrefix(ref, "refs/") {
		panic("githubtest: SetRef wants a full reference name (refs/heads/…), got " + ref)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(splitRepo(fullName))
	if rp.refs == nil {
		rp.refs = map[string]string{}
	}
	rp.refs[ref] = sha
	if _, isCommit := rp.objectLocked(sha, "commit"); isCommit { // a push: as GitHub does
		s.movePullHeadsLocked(rp, ref, sha)
	}
}

// movePullHeadsLocked moves the head of every open pull request from branch ref (of the
// repository itself) to sha, as GitHub does when the branch moves.
func (s *Server) movePullHeadsLocked(rp *repo, ref, sha string) {
	for _, is := range rp.issues {
		if p := is.pull; p != nil && is.State == "open" && !p.Fork && "refs/heads/"+p.HeadRef == ref {
			p.HeadSHA = sha
			p.files = s.changedFilesLocked(rp, p.BaseSHA, sha)
		}
	}
}

// DeleteRef deletes the reference ref of "owner/name" (a merge queue deletes its branches
// once the group merged or left the queue).
func (s *Server) DeleteRef(fullName, ref string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.repoLocked(splitRepo(fullName)).refs, ref)
}

// Refs lists the references of "owner/name" whose names start with prefix, sorted.
func (s *Server) Refs(fullName, prefix string) map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]string{}
	for name, sha := range s.repoLocked(splitRepo(fullName)).refs {
		if strings.HasPrefix(name, prefix) {
			out[name] = sha
		}
	}
	return out
}

// listMatchingRefs answers as GitHub does: every reference whose name starts with
// refs/{ref} ("heads/feature" also lists refs/heads/feature-2), sorted by name, an empty
// array when none does. GitHub's own clients send {ref} as one path segment with its
// slashes escaped; the path router hands it over escaped.
func (s *Server) listMatchingRefs(w http.ResponseWriter, r *request) {
	want, err := url.PathUnescape(r.param("ref"))
	if err != nil || want == "" {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(r.param("owner"), r.param("repo"))
	var names []string
	for name := range rp.refs {
		if strings.HasPrefix(name, "refs/"+want) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	api := fmt.Sprintf("%s/repos/%s/git", s.srv.URL, rp.fullName())
	out := []map[string]any{}
	for _, name := range names {
		sha := rp.refs[name]
		out = append(out, map[string]any{"ref": name, "node_id": "REF_" + strings.ReplaceAll(name, "/", "_"),
			"url":    api + "/" + name,
			"object": map[string]any{"type": "commit", "sha": sha, "url": api + "/commits/" + sha}})
	}
	writeJSON(w, http.StatusOK, page(w, r.Request, out))
}

// listTags answers the repository's tags (refs/tags/…) with the commit each points at, paged,
// in reverse name order.
func (s *Server) listTags(w http.ResponseWriter, r *request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(r.param("owner"), r.param("repo"))
	var names []string
	for name := range rp.refs {
		if tag, ok := strings.CutPrefix(name, "refs/tags/"); ok {
			names = append(names, tag)
		}
	}
	slices.Sort(names)
	slices.Reverse(names)
	repoAPI := fmt.Sprintf("%s/repos/%s", s.srv.URL, rp.fullName())
	out := []map[string]any{}
	for _, tag := range names {
		sha := rp.refs["refs/tags/"+tag]
		out = append(out, map[string]any{"name": tag, "node_id": "REF_refs_tags_" + tag,
			"commit":      map[string]any{"sha": sha, "url": repoAPI + "/commits/" + sha},
			"zipball_url": repoAPI + "/zipball/" + url.PathEscape(tag),
			"tarball_url": repoAPI + "/tarball/" + url.PathEscape(tag)})
	}
	writeJSON(w, http.StatusOK, page(w, r.Request, out))
}
