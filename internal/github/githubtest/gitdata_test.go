package githubtest

import (
	"strings"
	"testing"
)

// seedCommit stores a commit of one file and points refs/heads/main at it.
func seedCommit(t *testing.T, s *Server, content string, parents ...string) string {
	t.Helper()
	blob := s.SetObject(repoName, "blob", []byte(content))
	s.mu.Lock()
	tree := s.repoLocked("acme", "infra").putObjectLocked("tree", formatTree([]treeEntry{{mode: "100644", name: "main.tf", sha: blob}}))
	s.mu.Unlock()
	c := gitCommit{tree: tree, parents: parents, author: "t <t@example.com> 1700000000 +0000", committer: "t <t@example.com> 1700000000 +0000", message: "m\n"}
	return s.SetObject(repoName, "commit", formatCommit(c))
}

// The Git data API's references as GitHub answers: a branch read with its slashes plain or
// escaped, a second creation refused ("Reference already exists"), a move that is not a
// fast forward refused unless forced, a missing reference 404.
func TestGitRefs(t *testing.T) {
	s := New(t)
	first := seedCommit(t, s, "a\n")
	second := seedCommit(t, s, "b\n", first)
	other := seedCommit(t, s, "c\n")
	tok := InstallationToken
	create := call(t, s, tok, "POST", "/repos/acme/infra/git/refs", map[string]string{"ref": "refs/heads/tfgate/fold-back/app", "sha": first})
	if create.status != 201 {
		t.Fatalf("create: %d %s", create.status, create.body)
	}
	for _, path := range []string{"/repos/acme/infra/git/ref/heads/tfgate/fold-back/app", "/repos/acme/infra/git/ref/heads%2Ftfgate%2Ffold-back%2Fapp"} {
		var got struct {
			Ref    string
			Object struct{ SHA string }
		}
		r := call(t, s, tok, "GET", path, nil)
		r.json(t, &got)
		if r.status != 200 || got.Ref != "refs/heads/tfgate/fold-back/app" || got.Object.SHA != first {
			t.Errorf("GET %s: %d %+v", path, r.status, got)
		}
	}
	if r := call(t, s, tok, "GET", "/repos/acme/infra/git/ref/heads/none", nil); r.status != 404 {
		t.Errorf("missing branch: %d", r.status)
	}
	again := call(t, s, tok, "POST", "/repos/acme/infra/git/refs", map[string]string{"ref": "refs/heads/tfgate/fold-back/app", "sha": second})
	if again.status != 422 || !strings.Contains(string(again.body), "Reference already exists") {
		t.Errorf("create again: %d %s", again.status, again.body)
	}
	for _, c := range []struct {
		sha    string
		force  bool
		status int
	}{{second, false, 200}, {other, false, 422}, {other, true, 200}} {
		r := call(t, s, tok, "PATCH", "/repos/acme/infra/git/refs/heads/tfgate/fold-back/app", map[string]any{"sha": c.sha, "force": c.force})
		if r.status != c.status {
			t.Errorf("move to %s (force %v): %d %s, want %d", c.sha, c.force, r.status, r.body, c.status)
		}
	}
	if got := s.Refs(repoName, "refs/heads/tfgate/")["refs/heads/tfgate/fold-back/app"]; got != other {
		t.Errorf("branch at %s, want %s", got, other)
	}
}

// Pull requests listed by head ("owner:branch"), and a second one for the same head refused
// with GitHub's message.
func TestCreatePullTwice(t *testing.T) {
	s := New(t)
	base := seedCommit(t, s, "a\n")
	head := seedCommit(t, s, "b\n", base)
	s.SetRef(repoName, "refs/heads/main", base)
	s.SetRef(repoName, "refs/heads/tfgate/fold-back/app", head)
	s.AddPull(repoName, Pull{HeadRef: "feature", BaseRef: "main", HeadSHA: base})
	in := map[string]string{"title": "t", "head": "tfgate/fold-back/app", "base": "main", "body": "b"}
	if r := call(t, s, InstallationToken, "POST", "/repos/acme/infra/pulls", in); r.status != 201 {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	r := call(t, s, InstallationToken, "POST", "/repos/acme/infra/pulls", in)
	if r.status != 422 || !strings.Contains(string(r.body), "A pull request already exists for acme:tfgate/fold-back/app.") {
		t.Errorf("create again: %d %s", r.status, r.body)
	}
	var list []struct {
		Number int
		Head   struct{ Ref string }
	}
	l := call(t, s, InstallationToken, "GET", "/repos/acme/infra/pulls?head=acme:tfgate/fold-back/app", nil)
	l.json(t, &list)
	if len(list) != 1 || list[0].Head.Ref != "tfgate/fold-back/app" {
		t.Errorf("list by head: %+v", list)
	}
	l = call(t, s, InstallationToken, "GET", "/repos/acme/infra/pulls", nil)
	l.json(t, &list)
	if len(list) != 2 {
		t.Errorf("list: %+v", list)
	}
}
