package codeowners

import (
	"regexp"
	"strings"
)

// compile turns a gitignore-style pattern into a regular expression over root-relative
// paths, with GitHub's differences; the second result says why the pattern is invalid.
//
// A pattern with a "/" at the start or in the middle is anchored at the root, else it
// matches at any depth. A pattern matches a path, and every path under a directory it
// matches, except that one ending in "/*" matches only the directory's own files, and one
// ending in "/" matches only under a directory.
func compile(pattern string) (*regexp.Regexp, string) {
	switch {
	case strings.HasPrefix(pattern, "!"):
		return nil, `"!" negation does not work in CODEOWNERS`
	case strings.ContainsAny(pattern, "[]"):
		return nil, `"[ ]" character ranges do not work in CODEOWNERS`
	}
	p := pattern
	dirOnly := strings.HasSuffix(p, "/") && p != "/"
	p = strings.TrimSuffix(p, "/")
	anchored := strings.Contains(p, "/")
	p = strings.TrimPrefix(p, "/")
	if p == "" {
		return nil, "the pattern matches nothing"
	}
	segs := strings.Split(p, "/")
	var b strings.Builder
	b.WriteString("(?s)") // a path may hold any byte but "/" and NUL, newlines too: "." matches them
	if anchored {
		b.WriteString("^")
	} else {
		b.WriteString("^(?:.*/)?")
	}
	for i, s := range segs {
		last := i == len(segs)-1
		switch {
		case s == "**" && last:
			b.WriteString(".*")
			return regexp.MustCompile(b.String() + "$"), ""
		case s == "**":
			b.WriteString("(?:.*/)?")
			continue
		case s == "":
			return nil, "the pattern has an empty path segment (//)"
		}
		b.WriteString(segment(s))
		if !last {
			b.WriteString("/")
		}
	}
	switch {
	case dirOnly:
		b.WriteString("/.+$")
	case segs[len(segs)-1] == "*" && len(segs) > 1:
		b.WriteString("$") // GitHub: "docs/*" owns docs' files, not deeper ones
	default:
		b.WriteString("(?:/.+)?$")
	}
	return regexp.MustCompile(b.String()), ""
}

// segment is one path segment's expression: * and ? never cross a "/", \x is x.
func segment(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '*':
			for i+1 < len(s) && s[i+1] == '*' {
				i++
			}
			b.WriteString("[^/]*")
		case '?':
			b.WriteString("[^/]")
		case '\\':
			if i+1 < len(s) {
				i++
				b.WriteString(regexp.QuoteMeta(s[i : i+1]))
			}
		default:
			b.WriteString(regexp.QuoteMeta(s[i : i+1]))
		}
	}
	return b.String()
}
