package render

import (
	"strings"
	"unicode/utf8"
)

// The markdown escaper. Everything that comes from a pull request, a plan or a policy —
// paths, addresses, values, messages, errors — reaches markdown through one of the three
// functions below, and nothing else does:
//
//   - mdText for prose: control characters are escaped as on a terminal (clean), every
//     markdown metacharacter is backslash-escaped, <, > and & become entities (so no HTML
//     tag, comment or entity can be formed, and no <details> closed), and @mentions and
//     #123 references are broken with a zero-width joiner so that nobody is pinged and no
//     issue is cross-referenced.
//   - mdCode for an inline code span: a backtick run longer than any in the text.
//   - codeFence for a fenced block: a fence longer than any backtick run in its lines.
//
// Inside code spans and blocks GitHub neither renders HTML nor links mentions, so text
// there is only cleaned of control characters, and "<!" broken (noComment) so that no
// hidden marker can be forged. No user text is ever written into an HTML
// attribute or a <summary> (which is raw HTML, where backslash escapes do not apply).

// zwj is inserted after @ and # to keep GitHub from linking a mention or a reference.
const zwj = "\u200d"

// mdText escapes s for markdown prose, in a paragraph, a list item, an alert or a table
// cell (a pipe is escaped too).
func mdText(s string) string {
	s = clean(s)
	var b strings.Builder
	b.Grow(len(s) + len(s)/8)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '\\', '`', '*', '_', '{', '}', '[', ']', '(', ')', '+', '-', '.', '!', '|', '~', '=', '^', '$', ':', '"', '\'':
			// ':' keeps "javascript:" and emoji shortcodes inert; quotes, because they are
			// cheap to escape and matter inside any HTML GitHub might one day let through.
			b.WriteByte('\\')
			b.WriteByte(c)
		case '@', '#':
			b.WriteByte('\\')
			b.WriteByte(c)
			if i+1 < len(s) && isWordByte(s[i+1]) {
				b.WriteString(zwj)
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// mdLines escapes multi-line text for one paragraph or list item: each non-empty line is
// escaped, and lines are joined by hard breaks ("\" at the end of a line) indented by
// indent, so a policy message or error keeps its lines without starting a new block.
func mdLines(s, indent string) string {
	var out []string
	for _, l := range strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, mdText(l))
		}
	}
	return strings.Join(out, "\\\n"+indent)
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c >= 0x80
}

// mdCode writes s as an inline code span. Outside tables only: a table cell uses
// mdCellCode, because GFM splits cells at pipes before it sees code spans.
func mdCode(s string) string {
	s = codeLine(s)
	if s == "" {
		return "` `"
	}
	ticks := strings.Repeat("`", longestRun(s, '`')+1)
	if s[0] == '`' || s[len(s)-1] == '`' || s[0] == ' ' || s[len(s)-1] == ' ' {
		return ticks + " " + s + " " + ticks
	}
	return ticks + s + ticks
}

// mdCellCode is a code-styled table cell: <code> around escaped prose, which (unlike a
// code span) lets a pipe in the text be escaped.
func mdCellCode(s string) string {
	return "<code>" + mdText(s) + "</code>"
}

// longestRun is the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	best, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}

// codeFence is a backtick fence that no line of a block can close: longer than every
// backtick run in them, and at least three.
func codeFence(lines []string) string {
	n := 2
	for _, l := range lines {
		n = max(n, longestRun(l, '`'))
	}
	return strings.Repeat("`", n+1)
}

// codeLine cleans one line for a code block: control characters escaped, and no HTML
// comment opened (noComment).
func codeLine(s string) string {
	return noComment(clean(s))
}

// noComment breaks every "<!" with a zero-width joiner, so that no text tfgate renders can
// hold an HTML comment — above all none of tfgate's own hidden markers (the sticky
// comment's, the gate line's), which a plan value could otherwise forge. Inside code spans
// and blocks GitHub decodes no entity, so "&lt;" would show as typed; the joiner shows as
// nothing, and the text still reads "<!--". Prose needs none of this: mdText turns "<"
// into "&lt;".
func noComment(s string) string {
	if !strings.Contains(s, "<!") {
		return s
	}
	return strings.ReplaceAll(s, "<!", "<"+zwj+"!")
}

// cutBytes shortens s to at most n bytes on a rune boundary.
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
