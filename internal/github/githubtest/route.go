package githubtest

import (
	"net/http"
	"strings"
)

// route matches a request to a handler's pattern, for a server without GitHub's
// description: each literal segment of the template must be equal and each {parameter}
// takes one non-empty segment, left escaped as the description's router leaves it. Where
// two patterns fit, the one with more literal segments wins. nil: no handler fits.
func (s *Server) route(r *http.Request) *Match {
	got := strings.Split(r.URL.EscapedPath(), "/")
	var best *Match
	bestLiterals := -1
	for pattern := range s.handlers {
		method, template, _ := strings.Cut(pattern, " ")
		if method != r.Method {
			continue
		}
		params, literals, ok := matchTemplate(strings.Split(template, "/"), got)
		if ok && (literals > bestLiterals || literals == bestLiterals && pattern < best.Pattern) {
			best, bestLiterals = &Match{Pattern: pattern, Params: params}, literals
		}
	}
	return best
}

// matchTemplate matches a path's segments to a template's: the path parameters, and how
// many of the template's segments are literal.
func matchTemplate(template, path []string) (params map[string]string, literals int, ok bool) {
	if len(template) != len(path) {
		return nil, 0, false
	}
	params = map[string]string{}
	for i, seg := range template {
		name, isParam := strings.CutPrefix(seg, "{")
		switch {
		case isParam && path[i] != "":
			params[strings.TrimSuffix(name, "}")] = path[i]
		case isParam || seg != path[i]:
			return nil, 0, false
		default:
			literals++
		}
	}
	return params, literals, true
}
