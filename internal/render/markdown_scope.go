package render

import (
	"strings"

	"github.com/tfgate/tfgate/internal/report"
)

// The plan comment's graph: why each project is in the pull request, drawn from the
// selection's own account (report.Scope), collapsed under the summary table. It is the
// first thing left out when space is short: CommentParts keeps it only when it costs the
// comment no extra part, and otherwise says it left it out and how to draw it.

// graphSummary is the graph's <details> summary (tfgate's own text: raw HTML).
const graphSummary = "Why these projects (graph of changed files, local modules and projects)"

// graphLeftOut replaces the graph when the comment has no room for it.
const graphLeftOut = "*The graph of why these projects are planned is left out: the comment has no room for it. `tfgate projects --changed --format mermaid` draws it.*"

// hasGraph reports whether r has a scope graph to draw.
func hasGraph(r report.Run) bool {
	s := r.Scope
	return (r.Kind == report.KindPlan || r.Kind == "") && s != nil && (len(s.Touches) > 0 || len(s.Dropped) > 0 || len(s.Shared) > 0)
}

// graphSection is the comment's graph, or the note that it was left out (opts.noGraph).
func graphSection(r report.Run, opts MarkdownOptions) (mdSection, bool) {
	if !hasGraph(r) {
		return mdSection{}, false
	}
	s := mdSection{}
	if opts.noGraph {
		s.prose(graphLeftOut)
		return s, true
	}
	src := strings.TrimSuffix(scopeMermaid(buildScopeGraph(r.Scope, verdicts(r.Projects), GraphBudget)), "\n")
	b := mdCodeBlock(graphSummary, "mermaid", []string{src})
	b.reopen = b.open // never split: commentSplit keeps the graph only where it fits whole
	s.blocks = append(s.blocks, b)
	return s, true
}

// commentSplit lays the comment out over parts, with the graph when it costs no extra
// part and fits in one, else without it (and saying so).
func commentSplit(r report.Run, opts MarkdownOptions, limit int) *splitParts {
	if !hasGraph(r) {
		return splitDocument(r, opts, limit)
	}
	with := splitDocument(r, opts, limit)
	if len(with.parts) == 1 && with.shortened == 0 {
		return with // the graph costs no part (and a part holds it whole)
	}
	without := opts
	without.noGraph = true
	sp := splitDocument(r, without, limit)
	if g, _ := graphSection(r, opts); len(with.parts) == len(sp.parts) && with.shortened == sp.shortened && cost(g.text()) <= with.budget {
		return with
	}
	return sp
}
