package config

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Error is one problem with the configuration file, located at File:Line.
type Error struct {
	File   string
	Line   int // 0 when the problem is with the file as a whole
	Column int // 0 when unknown; not printed, for editors and annotations
	Msg    string
	err    error // underlying cause, for errors.Is (e.g. fs.ErrNotExist)
}

// Error formats the problem as "FILE:LINE: MSG", the form editors and CI annotations link.
func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

func (e *Error) Unwrap() error { return e.err }

// Errors is every problem found in one file, in line order.
type Errors []*Error

// Error lists the problems one a line.
func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap lets errors.As find the individual *Error values.
func (es Errors) Unwrap() []error {
	errs := make([]error, len(es))
	for i, e := range es {
		errs[i] = e
	}
	return errs
}

// asError returns nil, the single *Error, or all of them sorted by position.
func (es Errors) asError() error {
	switch len(es) {
	case 0:
		return nil
	case 1:
		return es[0]
	}
	slices.SortStableFunc(es, func(a, b *Error) int {
		return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column))
	})
	return es
}

// suggest returns the candidate closest to word, or "" when none is close enough to be
// what the user meant.
func suggest(word string, candidates []string) string {
	norm := func(s string) string {
		return strings.NewReplacer("_", "", "-", "", " ", "").Replace(strings.ToLower(s))
	}
	best, bestDist, prefixOf := "", 0, ""
	for _, c := range candidates {
		if singular(norm(c)) == singular(norm(word)) {
			return c // dependsOn, depends-on, Depends_On; policy for policies
		}
		d := editDistance(strings.ToLower(word), c)
		if d <= max(1, len(c)/4) && (best == "" || d < bestDist) {
			best, bestDist = c, d
		}
		if len(word) >= 3 && prefixOf == "" && strings.HasPrefix(c, strings.ToLower(word)) {
			prefixOf = c // bin for binary
		}
	}
	return cmp.Or(best, prefixOf)
}

// singular is an English plural's singular, roughly, so that a key given in the other
// number is still recognised: "policies" and "policy", "projects" and "project".
func singular(word string) string {
	if stem, ok := strings.CutSuffix(word, "ies"); ok {
		return stem + "y"
	}
	return strings.TrimSuffix(word, "s")
}

// didYouMean formats a suggestion as " (did you mean "x"?)", or "" without one.
func didYouMean(word string, candidates []string) string {
	if s := suggest(word, candidates); s != "" {
		return fmt.Sprintf(" (did you mean %q?)", s)
	}
	return ""
}

// editDistance is the optimal string alignment distance: Levenshtein plus adjacent
// transpositions, because swapped letters ("projetcs") are the commonest typo.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
