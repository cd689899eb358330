package render

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// ganttSafe is the ASCII punctuation a Gantt name keeps as it is: none of it means
// anything to Mermaid's gantt lexer, to GitHub's markdown inside a code block, or to the
// SVG text Mermaid draws names as.
const ganttSafe = "/._-+=,()[]@!?*~^$|"

// ganttText makes s safe as a Gantt section title or task name, a rendering context of its
// own. Mermaid's gantt lexer ends a name at ':', '#', ';' or a line break, reads '#' and
// '%%' as comments and '%%{' as a directive, '#35;' as an entity; GitHub ends the code
// block at a line of backticks, and a carriage return ends a line. So control and format
// characters go (line breaks become spaces), white space is one space, any other ASCII
// punctuation becomes its full-width form (':' → '：', '#' → '＃', '<' → '＜'), which reads
// the same and means nothing to either. The result is clipped to ganttNameRunes, keeping the
// end (of a path, the telling part), and never empty.
func ganttText(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		switch {
		case unicode.IsSpace(r) || unicode.IsControl(r):
			space = b.Len() > 0
			continue
		case unicode.Is(unicode.Cf, r) || r == utf8.RuneError:
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		switch {
		case r < 0x80 && unicode.IsPunct(r) || r < 0x80 && unicode.IsSymbol(r):
			if strings.ContainsRune(ganttSafe, r) {
				b.WriteRune(r)
			} else {
				b.WriteRune(r - '!' + '！') // the full-width form
			}
		default:
			b.WriteRune(r)
		}
	}
	out := b.String()
	if out == "" {
		return "_"
	}
	if n := utf8.RuneCountInString(out); n > ganttNameRunes {
		rs := []rune(out)
		out = "…" + strings.TrimLeft(string(rs[n-ganttNameRunes+1:]), " ")
	}
	return out
}

// ganttKeywords start a line that Mermaid's gantt lexer reads as a statement, not a task
// name (case-insensitive, at the start of the line).
var ganttKeywords = []string{"click", "call", "href", "gantt", "dateformat", "inclusiveenddates", "topaxis",
	"axisformat", "tickinterval", "includes", "excludes", "todaymarker", "weekday", "weekend", "title",
	"accdescription", "accdescr", "acctitle", "section", "displaymode"}

// ganttTask is ganttText for a task name, which starts a line: one that would start like a
// statement or a date ("click x", "2026-01-02 …") gets a "_" in front.
func ganttTask(s string) string {
	t := ganttText(s)
	lower := strings.ToLower(t)
	guard := t[0] >= '0' && t[0] <= '9'
	for _, k := range ganttKeywords {
		guard = guard || strings.HasPrefix(lower, k)
	}
	if guard {
		return "_" + t
	}
	return t
}
