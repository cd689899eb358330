package render

import (
	"regexp"
	"strings"
)

// `tfgate gate` writes its verdict (GateLine) into the first part of the sticky plan
// comment, between two hidden markers on lines of their own, right above the footer, where
// reviewers read the plan's verdict:
//
//	</details>
//
//	<!-- tfgate:gate -->
//	**Gate:** ✅ allowed — approved by @alice
//	<!-- /tfgate:gate -->
//
//	---
//	Commit `a1b2c3d` · [CI run](…) · tfgate v0.1.0
//
// Rendered text cannot hold the markers (noComment, mdText), and the block is found by
// the comment's structure, never by searching its text: a marker pair anywhere else — in a
// diff, a code span, a <details> block, from a comment an older tfgate wrote — is not the
// gate line and is left alone.
const (
	GateLineOpen  = "<!-- tfgate:gate -->"
	GateLineClose = "<!-- /tfgate:gate -->"
)

// SetGateLine returns body with line (one line; a newline in it becomes a space) as its
// gate line: the block above the footer (the last "---" line outside every code block
// and <details>) is replaced when it is there, else a block is inserted above the footer,
// or appended when the body has none.
func SetGateLine(body, line string) string {
	line = strings.Join(strings.FieldsFunc(line, func(r rune) bool { return r == '\n' || r == '\r' }), " ")
	lines := strings.Split(body, "\n")
	top := topLevelLines(lines)
	is := func(i int, want string) bool {
		return i >= 0 && i < len(lines) && top[i] && strings.TrimSuffix(lines[i], "\r") == want
	}
	footer := -1
	for i := len(lines) - 1; i >= 0; i-- {
		if is(i, "---") {
			footer = i
			break
		}
	}
	if footer < 0 {
		end := len(lines)
		for end > 0 && strings.TrimSpace(lines[end-1]) == "" {
			end--
		}
		if is(end-3, GateLineOpen) && is(end-1, GateLineClose) {
			lines[end-2] = line
			return strings.Join(lines, "\n")
		}
		return strings.TrimRight(body, "\r\n") + "\n\n" + GateLineOpen + "\n" + line + "\n" + GateLineClose + "\n"
	}
	eol := "" // a body edited on github.com comes back with CRLF
	if strings.HasSuffix(lines[footer], "\r") {
		eol = "\r"
	}
	if is(footer-1, "") && is(footer-2, GateLineClose) && is(footer-4, GateLineOpen) {
		lines[footer-3] = line + eol
		return strings.Join(lines, "\n")
	}
	out := append([]string{}, lines[:footer]...)
	out = append(out, GateLineOpen+eol, line+eol, GateLineClose+eol, eol)
	return strings.Join(append(out, lines[footer:]...), "\n")
}

var fenceLine = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})")

// topLevelLines marks the lines of a markdown body outside every fenced code block and
// every <details> block (tfgate's own, the only raw HTML it writes): a fence opens at up to
// three spaces of indent and closes with a run of the same character at least as long,
// followed by nothing but spaces, as CommonMark reads it.
func topLevelLines(lines []string) []bool {
	top := make([]bool, len(lines))
	fence, depth := "", 0
	for i, l := range lines {
		l = strings.TrimSuffix(l, "\r")
		if fence != "" {
			t := strings.TrimLeft(l, " ")
			if len(l)-len(t) <= 3 && strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]+" ") == "" {
				fence = ""
			}
			continue
		}
		if m := fenceLine.FindStringSubmatch(l); m != nil {
			fence = m[1]
			continue
		}
		switch {
		case strings.HasPrefix(l, "<details>"):
			depth++
		case l == "</details>" && depth > 0:
			depth--
		case depth == 0:
			top[i] = true
		}
	}
	return top
}
