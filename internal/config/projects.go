package config

import (
	"fmt"
	"net/url"
	"path"
	"slices"
	"strings"
	"unicode"

	"github.com/bmatcuk/doublestar/v4"
	"gopkg.in/yaml.v3"
)

// rawProject is a decoded project plus what the checks across projects need.
type rawProject struct {
	Project
	node     *yaml.Node
	label    string     // how messages name the project
	nameNode *yaml.Node // nil when the name comes from dir
	deps     []*yaml.Node
	approval *rawApproval
}

func (d *decoder) projects(n *yaml.Node) []rawProject {
	if isNull(n) || n.Kind == yaml.SequenceNode && len(n.Content) == 0 {
		// An empty list would silently mean "autodetect everything", the opposite of
		// what a list that names exactly the projects promises.
		d.errorf(n, `projects lists no project; list each one ("- dir: ..."), or remove the key to autodetect projects`)
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		d.errorf(n, `projects must be a list, got %s; start each project with "- dir: ..."`, describe(n))
		return nil
	}
	var out []rawProject
	for i, item := range n.Content {
		item = resolve(item)
		switch {
		case item.Kind == yaml.MappingNode:
			out = append(out, d.project(item, i))
		case item.Kind == yaml.ScalarNode && !isNull(item):
			d.errorf(item, "each projects entry must be a mapping; write \"- dir: %s\"", item.Value)
		default:
			d.errorf(item, "each projects entry must be a mapping with at least dir, got %s", describe(item))
		}
	}
	return out
}

// project decodes one projects entry. Checks that need the whole entry (var_files are
// relative to dir, which may come later in the mapping) run after the walk.
func (d *decoder) project(n *yaml.Node, index int) rawProject {
	p := rawProject{
		Project: Project{Workspace: "default", Mode: ModeManaged, Line: n.Line},
		node:    n,
		label:   label(scalarAt(n, "name"), scalarAt(n, "dir"), index),
	}
	prefix := p.label + ": "
	dirSet, dirOK := false, false
	var varFiles []string
	var varNodes []*yaml.Node
	d.mapping(n, p.label, []field{
		{"name", func(_, v *yaml.Node) {
			s, ok := d.str(v, prefix+"name")
			if !ok {
				return
			}
			if s == "" {
				d.errorf(v, "%sname must not be empty; remove it to name the project after its dir", prefix)
				return
			}
			if problem := nameProblem(s); problem != "" {
				d.errorf(v, "project name %q %s", s, problem)
			}
			p.Name, p.nameNode = s, v
		}},
		{"dir", func(_, v *yaml.Node) {
			dirSet = true
			s, ok := d.str(v, prefix+"dir")
			if !ok && !isNull(v) {
				return // not a string, reported
			}
			if s == "" {
				// "dir:" or "dir: ''" must not become "." (path.Clean's answer), silently
				// turning the repository root into the project.
				d.errorf(v, `%sdir is required and must not be empty; set it to the project's directory relative to the repository root ("." for the root itself)`, prefix)
				return
			}
			rel, ok := d.repoPath(v, prefix+"dir", s)
			if ok {
				p.Dir = rel
				dirOK = d.exists(v, prefix+"dir", s, rel, "in the repository", kindDir)
				if dirOK {
					d.holdsTerraform(v, prefix, s, rel)
				}
			}
		}},
		{"workspace", func(_, v *yaml.Node) {
			s, ok := d.str(v, prefix+"workspace")
			switch {
			case !ok:
			case s == "":
				d.errorf(v, `%sworkspace must not be empty; remove it to use "default"`, prefix)
			case url.PathEscape(s) != s:
				// Terraform's own rule for workspace names.
				d.errorf(v, `%sworkspace %q is not a valid Terraform workspace name; use URL-safe characters and no "/"`, prefix, s)
			default:
				p.Workspace = s
			}
		}},
		{"var_files", func(_, v *yaml.Node) {
			varFiles, varNodes, _ = d.list(v, prefix+"var_files")
		}},
		{"when_modified", func(_, v *yaml.Node) {
			vals, nodes, ok := d.list(v, prefix+"when_modified")
			if !ok {
				return
			}
			p.WhenModified = []string{}
			for i, s := range vals {
				switch {
				case path.IsAbs(s):
					d.errorf(nodes[i], "%swhen_modified %q must be relative to the project dir", prefix, s)
				case !doublestar.ValidatePattern(s):
					d.errorf(nodes[i], "%swhen_modified %q is not a valid glob; check its [ ] and { } pairs", prefix, s)
				default:
					p.WhenModified = append(p.WhenModified, s)
				}
			}
		}},
		{"depends_on", func(_, v *yaml.Node) {
			p.DependsOn, p.deps, _ = d.list(v, prefix+"depends_on")
		}},
		{"mode", func(_, v *yaml.Node) {
			s, ok := d.str(v, prefix+"mode")
			if !ok {
				return
			}
			if m := Mode(s); m != ModeManaged && m != ModeObserve {
				d.errorf(v, `%smode must be "managed" or "observe", got %q`, prefix, s)
				return
			}
			p.Mode = Mode(s)
		}},
		{"drift", func(_, v *yaml.Node) {
			if b, ok := d.boolean(v, prefix+"drift"); ok {
				p.SkipDrift = !b
			}
		}},
		{"approval", func(_, v *yaml.Node) {
			if !isNull(v) {
				a := d.approval(v, prefix, "approval")
				p.approval = &a
			}
		}},
	})
	if !dirSet {
		d.errorf(n, `%sdir is required; add "dir: path/to/project" (relative to the repository root)`, prefix)
	}
	if p.Name == "" && p.Dir != "" {
		p.Name = p.Dir
		if problem := nameProblem(p.Name); problem != "" {
			d.errorf(n, "%sits dir cannot be the project name: it %s; set name:", prefix, strings.TrimPrefix(problem, "must "))
		}
	}
	if varFiles != nil {
		p.VarFiles = d.varFiles(prefix, p.Dir, dirOK, varFiles, varNodes)
	}
	return p
}

// varFiles checks var files, which are relative to the project dir like terraform's own
// -var-file, and returns them cleaned.
func (d *decoder) varFiles(prefix, dir string, dirOK bool, vals []string, nodes []*yaml.Node) []string {
	out := []string{}
	where := "in " + dir
	if dir == "." {
		where = "in the repository root"
	}
	for i, s := range vals {
		n := nodes[i]
		rel := path.Join(dir, s)
		switch {
		case path.IsAbs(s):
			d.errorf(n, "%svar_files %q must be relative to the project dir", prefix, s)
		case rel == ".." || strings.HasPrefix(rel, "../"):
			d.errorf(n, "%svar_files %q is outside the repository", prefix, s)
		case dirOK && !d.exists(n, prefix+"var_files", s, rel, where, kindFile):
		default:
			out = append(out, path.Clean(s))
		}
	}
	return out
}

// nameProblem says what is wrong with a project name, or "". Names are typed as command
// arguments and shown in comments, so they must survive both.
func nameProblem(name string) string {
	switch {
	case strings.IndexFunc(name, unicode.IsSpace) >= 0:
		return "must not contain spaces"
	case strings.HasPrefix(name, "-"):
		return `must not start with "-"`
	}
	return ""
}

// scalarAt returns the text of key in mapping n when it is a plain scalar, for labelling
// a project in messages before it is decoded.
func scalarAt(n *yaml.Node, key string) string {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if v := resolve(n.Content[i+1]); n.Content[i].Value == key && v.Kind == yaml.ScalarNode && !isNull(v) {
			return v.Value
		}
	}
	return ""
}

// finishProjects applies approval defaults and runs the checks that span projects.
func (d *decoder) finishProjects(ps []rawProject, top Approval) []Project {
	if len(ps) == 0 {
		return nil
	}
	byName := d.checkUnique(ps)
	d.checkDependsOn(ps, byName)
	out := make([]Project, len(ps))
	for i := range ps {
		if ps[i].approval != nil {
			a := d.resolveApproval(*ps[i].approval, top, false)
			ps[i].Approval = &a
		}
		out[i] = ps[i].Project
	}
	return out
}

// checkUnique reports repeated names and repeated dir+workspace pairs, and returns the
// projects by name.
func (d *decoder) checkUnique(ps []rawProject) map[string]*rawProject {
	byName := make(map[string]*rawProject)
	byDir := make(map[[2]string]*rawProject)
	for i := range ps {
		p := &ps[i]
		if p.Dir != "" {
			key := [2]string{p.Dir, p.Workspace}
			if first, dup := byDir[key]; dup {
				d.errorf(p.node, "%s: dir %q with workspace %q is already project %q on line %d; list each dir and workspace once",
					p.label, p.Dir, p.Workspace, first.Name, first.Line)
				continue
			}
			byDir[key] = p
		}
		if p.Name == "" {
			continue
		}
		first, dup := byName[p.Name]
		switch {
		case !dup:
			byName[p.Name] = p
		case p.nameNode != nil:
			d.errorf(p.nameNode, "project name %q is already used on line %d; names must be unique", p.Name, first.Line)
		default:
			d.errorf(p.node, "project name %q (from its dir) is already used on line %d; give the projects distinct names with name:",
				p.Name, first.Line)
		}
	}
	return byName
}

func (d *decoder) checkDependsOn(ps []rawProject, byName map[string]*rawProject) {
	names := make([]string, 0, len(byName))
	for i := range ps {
		if byName[ps[i].Name] == &ps[i] {
			names = append(names, ps[i].Name)
		}
	}
	for i := range ps {
		p := &ps[i]
		for j, dep := range p.DependsOn {
			switch {
			case dep == p.Name:
				d.errorf(p.deps[j], "%s: depends_on lists the project itself; remove it", p.label)
			case byName[dep] == nil:
				d.errorf(p.deps[j], "%s: depends_on %q is not a project%s", p.label, dep, didYouMean(dep, names))
			}
		}
	}
	d.checkCycles(names, byName)
}

// checkCycles reports every dependency cycle once, as a path starting at the project that
// comes first in the file.
func (d *decoder) checkCycles(names []string, byName map[string]*rawProject) {
	const (
		unvisited = iota
		onStack
		done
	)
	state := make(map[string]int)
	reported := make(map[string]bool)
	var stack []string
	var visit func(name string)
	visit = func(name string) {
		state[name] = onStack
		stack = append(stack, name)
		for _, dep := range byName[name].DependsOn {
			if dep == name || byName[dep] == nil {
				continue // reported by checkDependsOn
			}
			switch state[dep] {
			case unvisited:
				visit(dep)
			case onStack:
				cycle := slices.Clone(stack[slices.Index(stack, dep):])
				earliest := slices.MinFunc(cycle, func(x, y string) int { return byName[x].Line - byName[y].Line })
				first := slices.Index(cycle, earliest)
				cycle = append(cycle[first:], cycle[:first]...)
				cycle = append(cycle, cycle[0])
				msg := fmt.Sprintf("depends_on cycle: %s; remove one of these dependencies", strings.Join(cycle, " -> "))
				if !reported[msg] {
					reported[msg] = true
					d.errorf(byName[cycle[0]].node, "%s", msg)
				}
			}
		}
		stack = stack[:len(stack)-1]
		state[name] = done
	}
	for _, name := range names {
		if state[name] == unvisited {
			visit(name)
		}
	}
}
