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

// buildScopeGraph lays out s within budget nodes. verdict gives a project's label suffix
// and class by its name and workspace ("" suffix: none, as in `tfgate projects`).
func buildScopeGraph(s *report.Scope, verdict func(name, workspace string) (word, class string), budget int) *scopeGraph {
	g := &scopeGraph{index: map[string]int{}, seen: map[gEdge]bool{}}
	projects, modules := graphProjects(s, verdict)
	shared := map[string]bool{}
	for _, f := range s.Shared {
		shared[f] = true
	}
	f := newFolding(drawnFiles(s), shared, len(modules), len(projects)+len(s.Dropped), budget)
	g.folded = f.notes
	foldModules := len(modules) > 1 && f.over(len(modules)+len(projects)+len(s.Dropped)) > 0
	if foldModules {
		g.folded = append(g.folded, english.Plural(len(modules), "local module", "local modules")+" drawn as one node")
	}
	named := len(projects)
	if over := f.over(pick1(foldModules, 1, len(modules)) + len(projects) + len(s.Dropped)); over > 0 {
		named = max(0, len(projects)-over-distinctClasses(projects))
		g.folded = append(g.folded, english.Plural(len(projects)-named, "project", "projects")+" drawn by verdict")
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
	for _, d := range s.Dropped {
		x := g.node("x\x00"+d.Name, gNode{label: d.Name + " · " + dropWord(d.How), class: kindDropped, kind: kindDropped})
		for _, file := range d.Files {
			g.edge(f.node(g, file), x, true)
		}
	}
	if len(g.folded) > 0 {
		g.node("note", gNode{label: fmt.Sprintf("Folded to stay within %d nodes: %s", budget, strings.Join(g.folded, "; ")), class: kindNote, kind: kindNote})
	}
	return g
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
