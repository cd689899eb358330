package render

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/tfgate/tfgate/internal/report"
)

// The verdict classes of a project node, and how each reads in its label.
var verdictWords = map[string]string{
	"changes":  "changes",
	"nochange": "no changes",
	"destroys": "destroys",
	"replaces": "replaces",
	"denied":   "denied",
	"failed":   "failed",
	"refused":  "refused",
	"notrun":   "not run",
	"selected": "selected",
}

func verdictWord(class string) string { return verdictWords[class] }

// graphStyles are the fill and stroke of each class (GitHub's light palette; every class
// also differs in its label's words, so colour is never the only sign).
var graphStyles = map[string][2]string{
	"changes":   {"#ddf4ff", "#0969da"},
	"nochange":  {"#f6f8fa", "#8c959f"},
	"destroys":  {"#ffebe9", "#cf222e"},
	"replaces":  {"#fff1e5", "#bc4c00"},
	"denied":    {"#ffcecb", "#82071e"},
	"failed":    {"#fff8c5", "#9a6700"},
	"refused":   {"#fff1e5", "#bc4c00"},
	"notrun":    {"#eaeef2", "#6e7781"},
	"selected":  {"#ddf4ff", "#0969da"},
	kindFile:    {"#ffffff", "#d0d7de"},
	kindShared:  {"#fff1e5", "#bc4c00"},
	kindModule:  {"#fbefff", "#8250df"},
	kindDropped: {"#f6f8fa", "#6e7781"},
	kindNote:    {"#fffbdd", "#d4a72c"},
}

// projectVerdict is how a project's run ended, as a graph reads it: its word and class.
func projectVerdict(p report.Project) string {
	switch p.Status {
	case report.StatusFailed, report.StatusInterrupted:
		return "failed"
	case report.StatusRefused:
		return "refused"
	case report.StatusNotStarted:
		return "notrun"
	}
	switch {
	case p.Policy != nil && p.Policy.Denied():
		return "denied"
	case p.Changes != nil && p.Changes.Summary.Destroy > 0:
		return "destroys"
	case p.Changes != nil && p.Changes.Summary.Replace > 0:
		return "replaces"
	case p.Changes != nil && p.Changes.Summary.HasChanges():
		return "changes"
	}
	return "nochange"
}

// verdicts reads each project's verdict from a run's projects; with none (`tfgate
// projects`), every project is only "selected" and its label says nothing more.
func verdicts(projects []report.Project) func(name, workspace string) (string, string) {
	return func(name, workspace string) (string, string) {
		if projects == nil {
			return "", "selected"
		}
		for _, p := range projects {
			if p.Name == name && p.Workspace == workspace {
				c := projectVerdict(p)
				return verdictWord(c), c
			}
		}
		return "not run", "notrun"
	}
}

// ScopeMermaid writes why the projects were chosen (s) as one Mermaid flowchart: changed
// files in their directories' subgraphs → local modules → projects, each project classed
// and labelled by its verdict among projects (nil: `tfgate projects`, no verdicts).
func ScopeMermaid(w io.Writer, s *report.Scope, projects []report.Project) error {
	_, err := io.WriteString(w, scopeMermaid(buildScopeGraph(s, verdicts(projects), GraphBudget)))
	return err
}

// scopeMermaid is the graph's Mermaid source, within mermaidMaxText: when whole labels
// would pass it (long non-ASCII paths, each rune an entity code), they are cut shorter —
// all but the fold note, which says what the graph leaves out.
func scopeMermaid(g *scopeGraph) string {
	var src string
	for _, clip := range []int{maxLabelRunes, 80, 40, 20, 10} {
		if src = scopeMermaidClip(g, clip); len(src) <= mermaidMaxText {
			break
		}
	}
	return src
}

func scopeMermaidClip(g *scopeGraph, clip int) string {
	var b strings.Builder
	b.WriteString("flowchart LR\n")
	shape := func(i int) string {
		n := g.nodes[i]
		max := clip
		if n.kind == kindNote {
			max = maxLabelRunes
		}
		id, l := fmt.Sprintf("n%d", i+1), mermaidLabelClip(n.label, max)
		switch n.kind {
		case kindModule:
			return id + "([" + l + "])"
		case kindDropped:
			return id + "[/" + l + "/]"
		case "project":
			return id + "[[" + l + "]]"
		}
		return id + "[" + l + "]"
	}
	var groups []string
	for _, n := range g.nodes {
		if n.group != "" && !slices.Contains(groups, n.group) {
			groups = append(groups, n.group)
		}
	}
	slices.Sort(groups)
	for gi, grp := range groups {
		fmt.Fprintf(&b, "  subgraph g%d[%s]\n", gi+1, mermaidLabelClip(pick(grp == ".", "(root)", grp+"/"), clip))
		for i, n := range g.nodes {
			if n.group == grp {
				b.WriteString("    " + shape(i) + "\n")
			}
		}
		b.WriteString("  end\n")
	}
	for i, n := range g.nodes {
		if n.group == "" {
			b.WriteString("  " + shape(i) + "\n")
		}
	}
	for _, e := range g.edges {
		fmt.Fprintf(&b, "  n%d %s n%d\n", e.from+1, pick(e.dotted, "-.->", "-->"), e.to+1)
	}
	for _, class := range usedClasses(g) {
		st := graphStyles[class]
		fmt.Fprintf(&b, "  classDef %s fill:%s,stroke:%s,color:#1f2328\n", class, st[0], st[1])
		var ids []string
		for i, n := range g.nodes {
			if n.class == class {
				ids = append(ids, fmt.Sprintf("n%d", i+1))
			}
		}
		fmt.Fprintf(&b, "  class %s %s\n", strings.Join(ids, ","), class)
	}
	return b.String()
}

// usedClasses are the classes of g's nodes, sorted.
func usedClasses(g *scopeGraph) []string {
	var out []string
	for _, n := range g.nodes {
		if !slices.Contains(out, n.class) {
			out = append(out, n.class)
		}
	}
	slices.Sort(out)
	return out
}

// ScopeDOT writes the same graph as ScopeMermaid in Graphviz's DOT language.
func ScopeDOT(w io.Writer, s *report.Scope, projects []report.Project) error {
	_, err := io.WriteString(w, scopeDOT(buildScopeGraph(s, verdicts(projects), GraphBudget)))
	return err
}

func scopeDOT(g *scopeGraph) string {
	var b strings.Builder
	b.WriteString("digraph tfgate {\n  rankdir=LR;\n  node [shape=box, style=filled, fontname=\"Helvetica\"];\n")
	shapes := map[string]string{kindModule: "ellipse", kindDropped: "parallelogram", "project": "box3d", kindNote: "note"}
	for i, n := range g.nodes {
		label := n.label
		if n.group != "" {
			label = pick(n.group == ".", "", n.group+"/") + n.label
		}
		st := graphStyles[n.class]
		attrs := fmt.Sprintf("label=%s, fillcolor=%q, color=%q", dotLabel(label), st[0], st[1])
		if sh := shapes[n.kind]; sh != "" {
			attrs += ", shape=" + sh
		}
		if n.class == kindShared || n.class == kindDropped || n.class == "notrun" {
			attrs += `, style="filled,dashed"`
		}
		fmt.Fprintf(&b, "  n%d [%s];\n", i+1, attrs)
	}
	for _, e := range g.edges {
		fmt.Fprintf(&b, "  n%d -> n%d%s;\n", e.from+1, e.to+1, pick(e.dotted, " [style=dashed]", ""))
	}
	b.WriteString("}\n")
	return b.String()
}
