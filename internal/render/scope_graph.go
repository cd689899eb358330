package render

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tfgate/tfgate/internal/english"
	"github.com/tfgate/tfgate/internal/report"
)

// GraphBudget is the most nodes a scope graph draws: beyond it, changed files are drawn by
// directory (then by shallower directories), local modules as one node, and the projects
// past the budget by verdict, and the graph says what it folded.
const GraphBudget = 60

// The kinds of node, which are also the Mermaid class of every node but a project's.
const (
	kindFile    = "file"
	kindShared  = "shared"
	kindModule  = "module"
	kindDropped = "dropped"
	kindNote    = "note"
)

type gNode struct {
	label string
	class string // the node's class: its kind, or a project's verdict
	kind  string // kindFile, …, or "project"
	group string // a file's directory (its subgraph); "" outside any
}

type gEdge struct {
	from, to int
	dotted   bool
}

// scopeGraph is what ScopeMermaid and ScopeDOT draw.
type scopeGraph struct {
	nodes  []gNode
	edges  []gEdge
	folded []string // what was folded to keep within the budget
	index  map[string]int
	seen   map[gEdge]bool
}

func (g *scopeGraph) node(key string, n gNode) int {
	if i, ok := g.index[key]; ok {
		return i
	}
	g.index[key] = len(g.nodes)
	g.nodes = append(g.nodes, n)
	return len(g.nodes) - 1
}

func (g *scopeGraph) edge(from, to int, dotted bool) {
	e := gEdge{from, to, dotted}
	if !g.seen[e] {
		g.seen[e] = true
		g.edges = append(g.edges, e)
	}
}

// projectRef is a project of the graph and how its run ended.
type projectRef struct {
	key, label, class string
}

// graphProjects are the projects s touches, each once, in order, labelled and classed by
// verdict, and the local modules it draws.
func graphProjects(s *report.Scope, verdict func(name, workspace string) (word, class string)) ([]projectRef, []string) {
	var projects []projectRef
	var modules []string
	seen := map[string]bool{}
	for _, t := range s.Touches {
		if t.Module != "" && !seen["m\x00"+t.Module] {
			seen["m\x00"+t.Module] = true
			modules = append(modules, t.Module)
		}
		key := "p\x00" + t.Project + "\x00" + t.Workspace
		if seen[key] {
			continue
		}
		seen[key] = true
		word, class := verdict(t.Project, t.Workspace)
		label := t.Project
		if t.Workspace != "" && t.Workspace != "default" {
			label += " (workspace " + t.Workspace + ")"
		}
		if word != "" {
			label += " · " + word
		}
		projects = append(projects, projectRef{key, label, class})
	}
	return projects, modules
}

// maxGraphEdges bounds a graph's edges, well below Mermaid's default limit (maxEdges, 500),
// over which it draws an error instead of the diagram.
const maxGraphEdges = 400

// maxDroppedNodes is the most projects the change dropped that a graph names; beyond, they
// are drawn by how they were dropped.
const maxDroppedNodes = 10

// buildScopeGraph lays out s within budget nodes and maxGraphEdges edges, folding more at
// each level until it fits: level 1 draws the modules as one node, level 2 the files by
// top-level directory, level 3 the files as one node and the projects by verdict. verdict
// gives a project's label suffix and class by its name and workspace ("" suffix: none, as
// in `tfgate projects`).
func buildScopeGraph(s *report.Scope, verdict func(name, workspace string) (word, class string), budget int) *scopeGraph {
	var g *scopeGraph
	for level := 0; level <= 3; level++ {
		if g = layoutScopeGraph(s, verdict, budget, level); len(g.edges) <= maxGraphEdges {
			break
		}
	}
	return g
}

func layoutScopeGraph(s *report.Scope, verdict func(name, workspace string) (word, class string), budget, level int) *scopeGraph {
	g := &scopeGraph{index: map[string]int{}, seen: map[gEdge]bool{}}
	projects, modules := graphProjects(s, verdict)
	shared := map[string]bool{}
	for _, f := range s.Shared {
		shared[f] = true
	}
	dropped := pick1(len(s.Dropped) > maxDroppedNodes || level >= 3, len(droppedKinds(s.Dropped)), len(s.Dropped))
	f := newFolding(drawnFiles(s), shared, len(modules), len(projects)+dropped, budget, []int{-1, -1, 1, 0}[level])
	g.folded = f.notes
	foldModules := len(modules) > 1 && (level >= 1 || f.over(len(modules)+len(projects)+dropped) > 0)
	if foldModules {
		g.folded = append(g.folded, english.Plural(len(modules), "local module", "local modules")+" drawn as one node")
	}
	named := len(projects)
	if over := f.over(pick1(foldModules, 1, len(modules)) + len(projects) + dropped); over > 0 || level >= 3 {
		named = pick1(level >= 3, 0, max(0, len(projects)-over-distinctClasses(projects)))
		g.folded = append(g.folded, english.Plural(len(projects)-named, "project", "projects")+" drawn by verdict")
	}
	if dropped < len(s.Dropped) {
		g.folded = append(g.folded, english.Plural(len(s.Dropped), "dropped project", "dropped projects")+" drawn by how")
	}
	for _, t := range s.Touches {
		from := f.node(g, t.File)
		if t.Module != "" {
			m := g.moduleNode(t.Module, modules, foldModules)
			g.edge(from, m, false)
			from = m
		}
		g.edge(from, g.projectNode("p\x00"+t.Project+"\x00"+t.Workspace, projects, named), false)
	}
	for _, sf := range s.Shared {
		f.node(g, sf)
	}
	g.droppedNodes(s.Dropped, f, dropped < len(s.Dropped))
	if len(g.folded) > 0 {
		g.node("note", gNode{label: fmt.Sprintf("Folded to stay within %d nodes%s: %s", budget, pick(level > 0, " and "+fmt.Sprint(maxGraphEdges)+" edges", ""), strings.Join(g.folded, "; ")), class: kindNote, kind: kindNote})
	}
	return g
}

// droppedNodes draws the projects the change dropped, each, or by how when folded, with a
// dotted edge from each file that dropped them.
func (g *scopeGraph) droppedNodes(ds []report.Dropped, f *folding, byHow bool) {
	kinds := droppedKinds(ds)
	for _, d := range ds {
		key, label := "x\x00"+d.Name, d.Name+" · "+dropWord(d.How)
		if byHow {
			key, label = "x\x00how\x00"+string(d.How), english.Plural(kinds[d.How], "project", "projects")+" · "+dropWord(d.How)
		}
		x := g.node(key, gNode{label: label, class: kindDropped, kind: kindDropped})
		for _, file := range d.Files {
			g.edge(f.node(g, file), x, true)
		}
	}
}

// droppedKinds counts the dropped projects by how they were dropped.
func droppedKinds(ds []report.Dropped) map[report.DropKind]int {
	out := map[report.DropKind]int{}
	for _, d := range ds {
		out[d.How]++
	}
	return out
}

// moduleNode is module m's node, or the one node of every module when they are folded.
func (g *scopeGraph) moduleNode(m string, modules []string, fold bool) int {
	if fold {
		return g.node("m", gNode{label: english.Plural(len(modules), "local module", "local modules"), class: kindModule, kind: kindModule})
	}
	return g.node("m\x00"+m, gNode{label: m, class: kindModule, kind: kindModule})
}

// projectNode is the project's node: its own among the first named, else its verdict's.
func (g *scopeGraph) projectNode(key string, projects []projectRef, named int) int {
	if i, ok := g.index[key]; ok {
		return i
	}
	i := slices.IndexFunc(projects, func(p projectRef) bool { return p.key == key })
	p := projects[i]
	if i < named {
		return g.node(key, gNode{label: p.label, class: p.class, kind: "project"})
	}
	n := 0
	for _, q := range projects[named:] {
		if q.class == p.class {
			n++
		}
	}
	return g.node("p\x00more\x00"+p.class, gNode{label: english.Plural(n, "more project", "more projects") + " · " + verdictWord(p.class), class: p.class, kind: "project"})
}

func pick1(b bool, yes, no int) int {
	if b {
		return yes
	}
	return no
}

func distinctClasses(ps []projectRef) int {
	seen := map[string]bool{}
	for _, p := range ps {
		seen[p.class] = true
	}
	return len(seen)
}

// drawnFiles are the changed files the graph draws: those that touch a project, the shared
// ones and those that dropped a project, sorted, each once.
func drawnFiles(s *report.Scope) []string {
	var out []string
	for _, t := range s.Touches {
		out = append(out, t.File)
	}
	out = append(out, s.Shared...)
	for _, d := range s.Dropped {
		out = append(out, d.Files...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func dropWord(k report.DropKind) string {
	switch k {
	case report.DropRemoved:
		return "code removed"
	case report.DropToModule:
		return "now a module"
	case report.DropVanished:
		return "no longer planned"
	}
	return clean(string(k))
}
