package render

import (
	"fmt"
	"strings"

	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/report"
)

// CommentParts renders the report as the sticky pull-request comment: one or more bodies,
// each within opts.Limit (GitHub's github.MaxCommentChars by default) and each starting with
// opts.Marker's line. The first part always holds the verdict, the alerts and the summary
// table, so a reviewer never needs the later parts to decide; the rest continues in
// parts headed "tfgate plan (2/3)". Parts break between projects when they can, and
// inside a project's diff when one project alone is too large (the <details> and code
// fence are closed and reopened). Nothing is dropped but the graph of why these projects
// are planned (markdown_scope.go), which is left out first, saying so, when it would cost a
// part: otherwise only a single line too long for any comment is shortened, and it says so.
//
// An apply run's comment is the one audit record of the merge and is never split: see
// ApplyComment.
func CommentParts(r report.Run, opts MarkdownOptions) []string {
	if r.Kind == report.KindApply {
		return []string{ApplyComment(r, opts)}
	}
	return commentSplit(r, opts, opts.limit(github.MaxCommentChars)).bodies(r, opts) // markdown_scope.go
}

func (o MarkdownOptions) limit(def int) int {
	if o.Limit > 0 {
		return o.Limit
	}
	return def
}

// marker is part's marker line, "" for none. The format is notify's (notify.CommentMarker):
// render only leaves it where the publisher asked.
func (o MarkdownOptions) marker(part, total int) string {
	if o.Marker == nil {
		return ""
	}
	return strings.NewReplacer("\n", " ", "\r", " ").Replace(o.Marker(part, total))
}

// cost is what a text counts against a limit. GitHub counts characters; a byte count is
// never below the character count (in runes or UTF-16 units), and counting each newline
// twice leaves room for a body stored with CRLF line ends.
func cost(s string) int {
	return len(s) + strings.Count(s, "\n")
}

// reserve is what each part keeps free for what is added after splitting: the marker,
// the continuation heading and notes, and the footer.
func reserve(r report.Run, opts MarkdownOptions) int {
	return cost(opts.marker(1000, 1000)) + cost(footerFor(r, opts)) + 400
}

type splitPart struct {
	body  strings.Builder
	size  int
	start int      // size before any content (after a continuation heading)
	names []string // projects (wholly or partly) in this part, in order
}

type splitParts struct {
	parts     []*splitPart
	budget    int
	shortened int // lines cut because they were longer than a whole part
}

func (sp *splitParts) cur() *splitPart { return sp.parts[len(sp.parts)-1] }

func (sp *splitParts) add(s string) {
	p := sp.cur()
	p.body.WriteString(s)
	p.size += cost(s)
}

func (sp *splitParts) fits(s string) bool { return sp.cur().size+cost(s) <= sp.budget }

func (sp *splitParts) newPart() { sp.parts = append(sp.parts, &splitPart{}) }

func (sp *splitParts) note(name string) {
	p := sp.cur()
	if name != "" && (len(p.names) == 0 || p.names[len(p.names)-1] != name) {
		p.names = append(p.names, name)
	}
}

// splitDocument lays the sections out over parts of at most limit (less the reserve).
func splitDocument(r report.Run, opts MarkdownOptions, limit int) *splitParts {
	sp := &splitParts{budget: max(limit-reserve(r, opts), 1024)}
	sp.newPart()
	for i, sec := range mdDocument(r, opts) {
		text := sec.text()
		switch {
		case sp.fits(text):
		case i > 0 && cost(text) <= sp.budget:
			sp.newPart() // the whole project fits in a part of its own: keep it together
		default:
			sp.splitSection(sec)
			continue
		}
		sp.note(sec.name)
		sp.add(text)
	}
	return sp
}

// splitSection writes a section too large for the rest of the part, breaking between
// blocks, then between a block's items, closing and reopening containers at each break.
func (sp *splitParts) splitSection(sec mdSection) {
	sp.note(sec.name)
	brk := func() {
		sp.newPart()
		sp.note(sec.name)
		if sec.cont != "" {
			sp.add(sec.cont + "\n\n")
		}
		sp.cur().start = sp.cur().size
	}
	empty := func() bool { return sp.cur().size == sp.cur().start }
	for _, b := range sec.blocks {
		whole := b.text() + "\n"
		if sp.fits(whole) {
			sp.add(whole)
			continue
		}
		open, close := lines(b.open), lines(b.close)+"\n"
		// Start the block here only if its opening and first item fit; else in a new part.
		first := ""
		if len(b.lines) > 0 {
			first = b.lines[0] + "\n"
		}
		if !sp.fits(open+first+close) && !empty() {
			brk()
		}
		sp.add(open)
		items := 0 // in this piece of the block
		fresh := cost(sec.cont+"\n\n") + cost(lines(b.reopen)) + cost(close)
		var add func(l string)
		add = func(l string) {
			item := l + "\n"
			if cost(item)+fresh > sp.budget && strings.Contains(l, "\n") {
				// Too big for any part: its lines go one by one.
				for _, sub := range strings.Split(l, "\n") {
					add(sub)
				}
				return
			}
			if !sp.fits(item+close) && items > 0 {
				sp.add(close)
				brk()
				sp.add(lines(b.reopen))
				items = 0
			}
			if !sp.fits(item + close) {
				item = sp.shorten(l, sp.budget-sp.cur().size-cost(close), b.code) + "\n"
			}
			sp.add(item)
			items++
		}
		for _, l := range b.lines {
			add(l)
		}
		sp.add(close)
	}
}

// shorten cuts one item to n (in cost), saying visibly how much is not shown. A line of
// code is cut as is. Markdown cut anywhere could leave a code span open and turn its
// (unescaped) content into markup, so a prose item is cut and then escaped again as
// text: the reader sees the start of its source, inert.
func (sp *splitParts) shorten(l string, n int, code bool) string {
	sp.shortened++
	tail := fmt.Sprintf(" … [shortened by tfgate: %d more bytes of this line do not fit in a comment; the full text is in the CI log]", len(l))
	room := max(0, n-cost(tail)-16)
	var keep, shown string
	if code {
		keep = cutBytes(l, room)
		shown = keep
	} else {
		keep = cutBytes(l, room/6) // mdText writes at most 5 bytes for one
		shown = mdText(strings.ReplaceAll(keep, "\n", " "))
	}
	return shown + strings.Replace(tail, fmt.Sprint(len(l)), fmt.Sprint(len(l)-len(keep)), 1)
}

func lines(ls []string) string {
	if len(ls) == 0 {
		return ""
	}
	return strings.Join(ls, "\n") + "\n"
}

// bodies assembles the parts: marker, continuation heading, content, "continued" note,
// footer.
func (sp *splitParts) bodies(r report.Run, opts MarkdownOptions) []string {
	total := len(sp.parts)
	footer := footerFor(r, opts)
	out := make([]string, total)
	for i, p := range sp.parts {
		var b strings.Builder
		if m := opts.marker(i+1, total); m != "" {
			b.WriteString(m + "\n")
		}
		if i > 0 {
			fmt.Fprintf(&b, "## %s (%d/%d)\n\n", kindTitle(r.Kind), i+1, total)
		}
		b.WriteString(p.body.String())
		if i < total-1 {
			fmt.Fprintf(&b, "*Continued in the next comment (%d/%d).*\n\n", i+2, total)
		}
		b.WriteString(footer)
		out[i] = b.String()
	}
	return out
}
