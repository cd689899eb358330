package githubtest

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// route matches a request to a handler's pattern, for a server without GitHub's
// description: each literal segment of the template must be equal and each {parameter}
// takes one non-empty segment, left escaped as the description's router leaves it — but a
// {ref} takes one or more, since GitHub takes a ref's slashes plain (go-github's form,
// heads/feature/x) as well as escaped (heads%2Ffeature%2Fx); either way the parameter is
// the escaped form. Where two patterns fit, the one with more literal segments wins. nil:
// no handler fits.
func (s *Server) route(r *http.Request) *Match {
	got := strings.Split(r.URL.EscapedPath(), "/")
	var best *Match
	bestLiterals := -1
	for pattern := range s.handlers {
		method, template, _ := strings.Cut(pattern, " ")
		if method != r.Method {
			continue
		}
		params := map[string]string{}
		literals, ok := matchTemplate(strings.Split(template, "/"), got, params)
		if ok && (literals > bestLiterals || literals == bestLiterals && pattern < best.Pattern) {
			best, bestLiterals = &Match{Pattern: pattern, Params: params}, literals
		}
	}
	return best
}

// matchTemplate matches a path's segments to a template's, filling in params; it returns
// how many of the template's segments are literal.
func matchTemplate(template, path []string, params map[string]string) (literals int, ok bool) {
	if len(template) == 0 {
		return 0, len(path) == 0
	}
	name, isParam := strings.CutPrefix(template[0], "{")
	if !isParam {
		if len(path) == 0 || path[0] != template[0] {
			return 0, false
		}
		n, ok := matchTemplate(template[1:], path[1:], params)
		return n + 1, ok
	}
	name = strings.TrimSuffix(name, "}")
	most := 1
	if name == "ref" {
		most = len(path) - (len(template) - 1)
	}
	for k := 1; k <= most && k <= len(path); k++ {
		if slices.Contains(path[:k], "") {
			break
		}
		if n, ok := matchTemplate(template[1:], path[k:], params); ok {
			params[name] = strings.Join(path[:k], "%2F")
			return n, true
		}
	}
	return 0, false
}

// escapeRef rewrites a request whose {ref} came with its slashes plain into the escaped
// form GitHub's description routes (one path segment), so that the contract judges the
// request GitHub would answer rather than refusing a form GitHub takes.
func (s *Server) escapeRef(r *http.Request) {
	m := s.route(r)
	if m == nil || !strings.Contains(m.Params["ref"], "%2F") {
		return
	}
	_, template, _ := strings.Cut(m.Pattern, " ")
	segs := strings.Split(template, "/")
	for i, seg := range segs {
		if name, ok := strings.CutPrefix(seg, "{"); ok {
			segs[i] = m.Params[strings.TrimSuffix(name, "}")]
		}
	}
	escaped := strings.Join(segs, "/")
	if escaped == r.URL.EscapedPath() {
		return
	}
	if p, err := url.PathUnescape(escaped); err == nil {
		r.URL.Path, r.URL.RawPath = p, escaped
	}
}
