// Package english holds the few rules of English that tfgate's messages need, so that every
// renderer and error says "1 project" and "2 projects", "10,000 resources", cuts a long
// name with "…" and abbreviates a commit the same way. It knows nothing of escaping: callers
// escape for their medium.
package english

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Plural counts n things: "1 project", "2 projects", "0 projects", "10,000 projects".
func Plural(n int, one, many string) string {
	return Count(n) + " " + Agree(n, one, many)
}

// Agree is the form of a word that agrees with n things, for the words of a sentence
// around a count: Agree(1, "belongs", "belong") is "belongs", for any other n "belong".
func Agree(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Count writes n with thousands separators: 10,000.
func Count(n int) string {
	s := strconv.Itoa(n)
	if n < 0 || len(s) <= 3 {
		return s
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// ClipList joins items with ", ", naming at most max of them (max ≥ 1) and counting the rest:
// "a, b, c and 2 more". It is Clip for a list: it drops whole items, never cuts one.
func ClipList(items []string, max int) string {
	if len(items) <= max {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:max], ", ") + " and " + strconv.Itoa(len(items)-max) + " more"
}

// Clip cuts s to at most max characters (runes, never splitting one), marking the cut with
// a final "…" that counts as one of them. A max below 1 leaves nothing.
func Clip(s string, max int) string {
	if max <= 0 {
		return ""
	}
	if len(s) <= max || utf8.RuneCountInString(s) <= max {
		return s
	}
	n := 0
	for i := range s {
		if n == max-1 {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// ShortSHA is a commit's 7-character abbreviation, as GitHub shows it. It never splits a
// character, so it is safe on a value read from an event payload.
func ShortSHA(sha string) string {
	if len(sha) <= 7 {
		return sha
	}
	n := 0
	for i := range sha {
		if n == 7 {
			return sha[:i]
		}
		n++
	}
	return sha
}
