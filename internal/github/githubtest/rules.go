package githubtest

import (
	"fmt"
	"net/http"
	"net/url"
	"path"
	"sort"
	"strings"
	"time"
)

// Ruleset is a repository ruleset targeting branches, as far as tfgate reads it.
type Ruleset struct {
	Name string
	// Enforcement is active, evaluate or disabled; only active rulesets' rules apply (GitHub
	// leaves the others out of a branch's rules).
	Enforcement string
	// Include are ref name patterns: "~DEFAULT_BRANCH", "~ALL", "refs/heads/main",
	// "refs/heads/release/*" (fnmatch, as GitHub). Empty means ~DEFAULT_BRANCH.
	Include []string
	// RequiredChecks are the contexts of a required_status_checks rule (none: no such rule).
	RequiredChecks []string
	MergeQueue     bool // a merge_queue rule
	PullRequest    bool // a pull_request rule
	// Organization makes it an organization's ruleset (source type Organization).
	Organization bool
}

type rulesetState struct {
	Ruleset
	id int64
}

// classicProtection is a branch's classic protection, as far as required status checks go.
type classicProtection struct {
	contexts []string // nil: protected, but status checks are not required
}

type rulesState struct {
	rulesets []*rulesetState
	classic  map[string]*classicProtection // by branch
	secrets  map[string]time.Time          // Actions secret name → when it was set
	defaultB string
}

func (r *repo) rulesLocked() *rulesState {
	if r.rules == nil {
		r.rules = &rulesState{classic: map[string]*classicProtection{}, secrets: map[string]time.Time{}, defaultB: "main"}
	}
	return r.rules
}

// AddRuleset adds a ruleset to the repository "owner/name" and returns its id.
func (s *Server) AddRuleset(fullName string, rs Ruleset) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rs.Enforcement == "" {
		rs.Enforcement = "active"
	}
	st := &rulesetState{Ruleset: rs, id: s.newID()}
	rp := s.repoLocked(splitRepo(fullName))
	rp.rulesLocked().rulesets = append(rp.rulesLocked().rulesets, st)
	return st.id
}

// ProtectBranch gives branch classic branch protection requiring the status checks
// contexts (none: protected without required status checks).
func (s *Server) ProtectBranch(fullName, branch string, contexts ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(splitRepo(fullName))
	rp.rulesLocked().classic[branch] = &classicProtection{contexts: contexts}
}

// SetSecret sets the repository's Actions secret name.
func (s *Server) SetSecret(fullName, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(splitRepo(fullName))
	rp.rulesLocked().secrets[strings.ToUpper(name)] = s.tick()
}

// HangNext holds the next n requests matching match for d before answering them 504, as a
// gateway does whose backend timed out: a client with a shorter timeout gives up first.
func (s *Server) HangNext(n int, d time.Duration, match string) {
	s.addFault(n, match, func(w http.ResponseWriter) {
		time.Sleep(d)
		writeError(w, http.StatusGatewayTimeout, "We couldn't respond to your request in time.")
	})
}

// branchParam is the branch of the path, which clients escape ("release%2F1.0").
func branchParam(r *request) string {
	if b, err := url.PathUnescape(r.param("branch")); err == nil {
		return b
	}
	return r.param("branch")
}

func (s *Server) ruleRoutes() {
	s.handle("GET /repos/{owner}/{repo}/rules/branches/{branch}", s.getBranchRules)
	s.handle("GET /repos/{owner}/{repo}/branches/{branch}/protection/required_status_checks", s.getClassicStatusChecks)
	s.handle("GET /repos/{owner}/{repo}/actions/secrets", s.listRepoSecrets)
}

// applies reports whether the ruleset targets branch (the default branch is defaultB).
func (rs *rulesetState) applies(branch, defaultB string) bool {
	include := rs.Include
	if len(include) == 0 {
		include = []string{"~DEFAULT_BRANCH"}
	}
	for _, p := range include {
		switch p {
		case "~ALL":
			return true
		case "~DEFAULT_BRANCH":
			if branch == defaultB {
				return true
			}
			continue
		}
		if ok, _ := path.Match(p, "refs/heads/"+branch); ok {
			return true
		}
	}
	return false
}

// getBranchRules answers every rule of the active rulesets that target the branch, in the
// shape GitHub gives them: the rule, plus ruleset_source_type, ruleset_source and
// ruleset_id. Anyone who may read the repository may read them.
func (s *Server) getBranchRules(w http.ResponseWriter, r *request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(r.param("owner"), r.param("repo"))
	if rp.permission(r.tok) == "none" {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	st := rp.rulesLocked()
	branch := branchParam(r)
	var rules []map[string]any
	for _, rs := range st.rulesets {
		if rs.Enforcement != "active" || !rs.applies(branch, st.defaultB) {
			continue
		}
		info := func(rule map[string]any) map[string]any {
			rule["ruleset_id"] = rs.id
			if rs.Organization {
				rule["ruleset_source_type"], rule["ruleset_source"] = "Organization", rp.owner
			} else {
				rule["ruleset_source_type"], rule["ruleset_source"] = "Repository", rp.fullName()
			}
			return rule
		}
		if rs.PullRequest {
			rules = append(rules, info(map[string]any{"type": "pull_request", "parameters": map[string]any{
				"dismiss_stale_reviews_on_push": false, "require_code_owner_review": false, "require_last_push_approval": false,
				"required_approving_review_count": 1, "required_review_thread_resolution": false}}))
		}
		if len(rs.RequiredChecks) > 0 {
			checks := make([]map[string]any, len(rs.RequiredChecks))
			for i, c := range rs.RequiredChecks {
				checks[i] = map[string]any{"context": c}
			}
			rules = append(rules, info(map[string]any{"type": "required_status_checks", "parameters": map[string]any{
				"required_status_checks": checks, "strict_required_status_checks_policy": false}}))
		}
		if rs.MergeQueue {
			rules = append(rules, info(map[string]any{"type": "merge_queue", "parameters": map[string]any{
				"check_response_timeout_minutes": 60, "grouping_strategy": "ALLGREEN", "max_entries_to_build": 5,
				"max_entries_to_merge": 5, "merge_method": "MERGE", "min_entries_to_merge": 1,
				"min_entries_to_merge_wait_minutes": 5}}))
		}
	}
	if rules == nil {
		rules = []map[string]any{}
	}
	writeJSON(w, http.StatusOK, page(w, r.Request, rules))
}

// getClassicStatusChecks is classic protection's required status checks. Like GitHub it
// needs admin rights: an installation token without "Administration: read" (GITHUB_TOKEN)
// gets 403, a user without admin rights 404 "Not Found"; a branch without classic
// protection is 404 "Branch not protected", one protected without required checks 404
// "Required status checks not enabled".
func (s *Server) getClassicStatusChecks(w http.ResponseWriter, r *request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	const doc = "https://docs.github.com/rest/branches/branch-protection#get-status-checks-protection"
	rp := s.repoLocked(r.param("owner"), r.param("repo"))
	switch {
	case r.tok.Installation && rp.perms[r.tok.User.Login] != "admin":
		writeJSON(w, http.StatusForbidden, map[string]string{"message": "Resource not accessible by integration", "documentation_url": doc})
		return
	case rp.permission(r.tok) != "admin":
		writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found", "documentation_url": doc})
		return
	}
	branch := branchParam(r)
	p := rp.rulesLocked().classic[branch]
	switch {
	case p == nil:
		writeJSON(w, http.StatusNotFound, map[string]string{"message": "Branch not protected", "documentation_url": doc})
		return
	case p.contexts == nil:
		writeJSON(w, http.StatusNotFound, map[string]string{"message": "Required status checks not enabled", "documentation_url": doc})
		return
	}
	base := fmt.Sprintf("%s/repos/%s/branches/%s/protection/required_status_checks", s.srv.URL, rp.fullName(), branch)
	checks := make([]map[string]any, len(p.contexts))
	for i, c := range p.contexts {
		checks[i] = map[string]any{"context": c, "app_id": nil}
	}
	writeJSON(w, http.StatusOK, map[string]any{"url": base, "contexts_url": base + "/contexts", "strict": false,
		"contexts": p.contexts, "checks": checks})
}

// listRepoSecrets lists the secrets' names and dates, never values. GitHub's description asks
// for collaborator access (write; cli/cli#7100: the API, unlike the settings page, does not
// need admin): GITHUB_TOKEN (no "Secrets" permission) and readers get 403.
func (s *Server) listRepoSecrets(w http.ResponseWriter, r *request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	const doc = "https://docs.github.com/rest/actions/secrets#list-repository-secrets"
	rp := s.repoLocked(r.param("owner"), r.param("repo"))
	switch {
	case r.tok.Installation && rp.perms[r.tok.User.Login] != "admin":
		writeJSON(w, http.StatusForbidden, map[string]string{"message": "Resource not accessible by integration", "documentation_url": doc})
		return
	case !canWrite(rp.permission(r.tok)):
		writeJSON(w, http.StatusForbidden, map[string]string{"message": "Must have admin rights to Repository.", "documentation_url": doc})
		return
	}
	st := rp.rulesLocked()
	names := make([]string, 0, len(st.secrets))
	for n := range st.secrets {
		names = append(names, n)
	}
	sort.Strings(names)
	all := make([]map[string]any, len(names))
	for i, n := range names {
		all[i] = map[string]any{"name": n, "created_at": ts(st.secrets[n]), "updated_at": ts(st.secrets[n])}
	}
	writeJSON(w, http.StatusOK, map[string]any{"total_count": len(all), "secrets": page(w, r.Request, all)})
}
