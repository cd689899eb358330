// Package codeowners reads a CODEOWNERS file as GitHub does and says who owns a path.
//
// The syntax is GitHub's (docs: "About code owners"): one rule a line, a pattern followed
// by owners (@user, @org/team or an e-mail address); blank lines and lines starting with #
// are ignored, and # after whitespace starts a comment. Patterns follow gitignore, with
// GitHub's differences: "!" negation and "[ ]" ranges do not work (such a line is an
// error), "\#" escapes a pattern starting with #, and a pattern ending in "/*" matches the
// directory's files but not deeper ones. The last matching rule wins; a rule with no owners
// leaves its paths without an owner.
//
// The package is pure: it parses text and matches paths. Where GitHub would report a line
// as invalid, Parse reports it by line number; the caller decides (tfgate fails closed).
package codeowners

import (
	"fmt"
	"regexp"
	"strings"
)

// Locations are where GitHub looks for the file, in order: the first found is used.
var Locations = []string{".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS"}

// Rule is one line of the file.
type Rule struct {
	Line    int    // 1-based
	Pattern string // as written
	// Owners are the owners as written without "@": logins, "org/team" slugs, and e-mail
	// addresses. None: the rule un-owns what it matches.
	Owners []string
	re     *regexp.Regexp
}

// Error is a line GitHub would report as invalid.
type Error struct {
	Line int
	Text string
}

func (e Error) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Text) }

// File is a parsed CODEOWNERS file.
type File struct {
	Rules []Rule
	// Errors are the invalid lines. A line whose pattern is invalid has no rule; one whose
	// pattern is valid but some owner is not keeps its rule without that owner.
	Errors []Error
}

var (
	loginRE = regexp.MustCompile(`^@[A-Za-z0-9](?:[A-Za-z0-9-]*)(?:\[bot\])?$`)
	teamRE  = regexp.MustCompile(`^@[A-Za-z0-9](?:[A-Za-z0-9-]*)/[A-Za-z0-9_.-]+$`)
	emailRE = regexp.MustCompile(`^[^@\s]+@[^@\s/]+\.[^@\s/]+$`)
)

// Parse reads a CODEOWNERS file's text.
func Parse(text string) *File {
	f := &File{}
	for i, line := range strings.Split(text, "\n") {
		n := i + 1
		fields := tokens(strings.TrimSpace(strings.TrimSuffix(line, "\r")))
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		pattern := fields[0]
		re, err := compile(pattern)
		if err != "" {
			f.Errors = append(f.Errors, Error{n, fmt.Sprintf("pattern %q: %s", pattern, err)})
			continue
		}
		r := Rule{Line: n, Pattern: pattern, Owners: []string{}, re: re}
		for _, o := range fields[1:] {
			if strings.HasPrefix(o, "#") {
				break // a comment
			}
			switch {
			case loginRE.MatchString(o), teamRE.MatchString(o):
				r.Owners = append(r.Owners, strings.TrimPrefix(o, "@"))
			case emailRE.MatchString(o):
				r.Owners = append(r.Owners, o)
			default:
				f.Errors = append(f.Errors, Error{n, fmt.Sprintf("owner %q is not @user, @org/team or an e-mail address", o)})
			}
		}
		f.Rules = append(f.Rules, r)
	}
	return f
}

// tokens splits a line at unescaped whitespace; "\ " is a space inside a token.
func tokens(line string) []string {
	var out []string
	var cur strings.Builder
	escaped := false
	for _, c := range line {
		switch {
		case escaped:
			if c != ' ' && c != '\t' {
				cur.WriteRune('\\')
			}
			cur.WriteRune(c)
			escaped = false
		case c == '\\':
			escaped = true
		case c == ' ' || c == '\t':
			if cur.Len() > 0 {
				out = append(out, cur.String())
				cur.Reset()
			}
		default:
			cur.WriteRune(c)
		}
	}
	if escaped {
		cur.WriteRune('\\')
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}

// Match is the rule that decides path's owners (root-relative, "/"-separated): the last
// rule matching it; nil when none does.
func (f *File) Match(path string) *Rule {
	path = strings.TrimPrefix(path, "/")
	for i := len(f.Rules) - 1; i >= 0; i-- {
		if f.Rules[i].re.MatchString(path) {
			return &f.Rules[i]
		}
	}
	return nil
}

// IsEmail reports whether an owner is an e-mail address: GitHub maps it to the account
// with that verified address, which the REST API does not tell.
func IsEmail(owner string) bool { return strings.Contains(owner, "@") }

// IsTeam reports whether an owner is an "org/team" slug.
func IsTeam(owner string) bool { return !IsEmail(owner) && strings.Contains(owner, "/") }
