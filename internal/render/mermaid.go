package render

import (
	"strconv"
	"strings"

	"github.com/tfgate/tfgate/internal/english"
)

// The graph escapers. A Mermaid or DOT label is a rendering context of its own, inside a
// markdown code fence (where markdown escaping does not apply) or a file: text from a
// pull request (paths, project names) reaches a graph only through mermaidLabel or
// dotLabel, and node and subgraph IDs are generated (n1, g1, …), never made of it.
//
//   - mermaidLabel writes a double-quoted label in which only letters, digits, space, "/",
//     ".", "-" and "_" stand as themselves; every other character is Mermaid's entity code
//     "#<decimal>;", which Mermaid shows as the character and never parses. So no quote
//     ends the label, no bracket, pipe, "&", ";", ":" or "%%" starts syntax (an edge, a
//     click or call, a ":::" class, a directive or comment), no backtick makes a markdown
//     string, no "<" makes HTML, and no newline starts a statement. Control characters are
//     first shown as escapes (clean), so a label is always one line.
//   - dotLabel writes a double-quoted DOT string: backslashes (DOT's own escapes, \N \G \l)
//     and quotes are backslash-escaped, "&" becomes "&amp;" (Graphviz decodes entities in
//     labels) and "#" "&#35;" (so no "##[" reads as a workflow command on stdout), control
//     characters are shown as escapes.
//
// Both cut a label to maxLabelRunes first: a path can be long, a diagram should not be.

// maxLabelRunes bounds a label before escaping (an entity code is at most 10 bytes).
const maxLabelRunes = 160

// mermaidMaxText is the most characters Mermaid draws a diagram of (its maxTextSize,
// 50,000 by default, as GitHub has it); a longer one is drawn as an error. A label's
// entity codes take up to 9 characters a rune, so long non-ASCII names can pass it.
const mermaidMaxText = 50000

// mermaidLabel is s as a quoted Mermaid label, "…" included.
func mermaidLabel(s string) string { return mermaidLabelClip(s, maxLabelRunes) }

// mermaidLabelClip is mermaidLabel with s cut to max runes.
func mermaidLabelClip(s string, max int) string {
	s = english.Clip(clean(s), max)
	if s == "" {
		s = " "
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteByte('"')
	for _, r := range s {
		if mermaidSafe(r) {
			b.WriteRune(r)
			continue
		}
		b.WriteByte('#')
		b.WriteString(strconv.Itoa(int(r)))
		b.WriteByte(';')
	}
	b.WriteByte('"')
	return b.String()
}

// mermaidSafe are the characters that stand as themselves in a label.
func mermaidSafe(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' ||
		r == ' ' || r == '/' || r == '.' || r == '-' || r == '_'
}

var dotEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "&", "&amp;", "#", "&#35;")

// dotLabel is s as a quoted DOT string.
func dotLabel(s string) string {
	return `"` + dotEscaper.Replace(english.Clip(clean(s), maxLabelRunes)) + `"`
}
