package githubtest

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// GitHub's limits that the fake enforces.
const (
	MaxBodyChars        = 65536
	MaxStatusDescChars  = 140
	MaxIssueTitleChars  = 256
	MaxLabelNameChars   = 50
	defaultPerPage      = 30
	maxPerPage          = 100
	defaultPermission   = "read"
	installationDefault = "write"
)

type repo struct {
	owner, name string
	nextNumber  int
	issues      map[int]*issueState // pull requests are issues too, as on GitHub
	comments    []*Comment          // in creation order
	statuses    map[string][]*Status
	labels      []*Label
	artifacts   []*artifactState
	releases    []*releaseState      // in publication order
	perms       map[string]string    // login → admin|maintain|write|triage|read|none
	refs        map[string]string    // git references (refs/heads/…) the test set → commit
	objects     map[string]gitObject // git objects by name (gitobjects.go)
	rules       *rulesState          // rulesets, classic protection, secrets (rules.go)
}

func (r *repo) fullName() string { return r.owner + "/" + r.name }

type issueState struct {
	Issue
	pull *pullState
}

type pullState struct {
	Pull
	files   []string
	reviews []*Review
	// introduced are the commits its merge brought into the base branch besides the merge
	// commit (a rebase merge's replayed commits): GitHub associates them with it.
	introduced []string
}

type artifactState struct {
	id      int64
	runID   int64
	name    string
	zip     []byte
	created time.Time
	expired bool
	headSHA string // the commit of the run that uploaded it ("" = not said)
	fork    bool   // a fork's run uploaded it
}

// repoLocked returns the repository, creating it: any "owner/name" exists once named.
func (s *Server) repoLocked(owner, name string) *repo {
	key := strings.ToLower(owner + "/" + name)
	r, ok := s.repos[key]
	if !ok {
		r = &repo{owner: owner, name: name, nextNumber: 1, issues: map[int]*issueState{},
			statuses: map[string][]*Status{}, perms: map[string]string{}}
		s.repos[key] = r
	}
	return r
}

func splitRepo(fullName string) (string, string) {
	owner, name, ok := strings.Cut(fullName, "/")
	if !ok {
		panic(fmt.Sprintf("githubtest: repository %q is not owner/name", fullName))
	}
	return owner, name
}

// permission is what login may do in r. Installation tokens get write, as GITHUB_TOKEN
// with the permissions tfgate's workflows ask for.
func (r *repo) permission(tok Token) string {
	if p, ok := r.perms[tok.User.Login]; ok {
		return p
	}
	if tok.Installation {
		return installationDefault
	}
	return defaultPermission
}

func canWrite(perm string) bool {
	return perm == "admin" || perm == "maintain" || perm == "write"
}

func (s *Server) userByLogin(login string) User {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.userLocked(login)
}

// userLocked is the account called login: a known one, a token's, or one made up with a
// stable id. The caller holds s.mu.
func (s *Server) userLocked(login string) User {
	for _, u := range []User{Bot, App, Alice, Bob, Carol} {
		if u.Login == login {
			return u
		}
	}
	for _, t := range s.tokens {
		if t.User.Login == login {
			return t.User
		}
	}
	return User{Login: login, ID: int64(len(login)) * 7919, Type: "User"}
}

// page cuts items to the requested page and sets GitHub's Link header.
func page[T any](w http.ResponseWriter, r *http.Request, items []T) []T {
	q := r.URL.Query()
	per := defaultPerPage
	if v, err := strconv.Atoi(q.Get("per_page")); err == nil && v > 0 {
		per = min(v, maxPerPage)
	}
	p := 1
	if v, err := strconv.Atoi(q.Get("page")); err == nil && v > 0 {
		p = v
	}
	last := max(1, (len(items)+per-1)/per)
	link := func(n int, rel string) string {
		u := url.URL{Scheme: "http", Host: r.Host, Path: r.URL.Path, RawPath: r.URL.RawPath}
		q2 := r.URL.Query()
		q2.Set("per_page", strconv.Itoa(per))
		q2.Set("page", strconv.Itoa(n))
		u.RawQuery = q2.Encode()
		return fmt.Sprintf("<%s>; rel=%q", u.String(), rel)
	}
	var links []string
	if p > 1 {
		links = append(links, link(p-1, "prev"), link(1, "first"))
	}
	if p < last {
		links = append(links, link(p+1, "next"), link(last, "last"))
	}
	if len(links) > 0 {
		w.Header().Set("Link", strings.Join(links, ", "))
	}
	start := (p - 1) * per
	if start >= len(items) {
		return []T{}
	}
	return items[start:min(start+per, len(items))]
}

func ts(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func pathInt(w http.ResponseWriter, r *request, name string) (int64, bool) {
	v, err := strconv.ParseInt(r.param(name), 10, 64)
	if err != nil {
		writeError(w, http.StatusNotFound, "Not Found")
		return 0, false
	}
	return v, true
}
