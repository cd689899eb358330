package drift

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/tfgate/tfgate/internal/plan"
	"github.com/tfgate/tfgate/internal/project"
)

// Suggestion is the edit that accepts one drifted attribute into the code, or the reason
// it cannot be made.
type Suggestion struct {
	Address   string // resource instance address, e.g. module.app.fakecloud_object.x[0]
	Attribute string // plan attribute path, e.g. content or tags.env
	// File (relative to the repository root) and Line (1-based) locate the literal to
	// edit; with a Reason, where the value comes from when that is known (a .tfvars file,
	// a module block), else empty.
	File string
	Line int
	// Old and New are HCL source text: Old as it is in File from Line on, New what it
	// becomes. Both are empty when Reason is set.
	Old, New string
	// Reason says why the attribute cannot be folded back ("set by var.size in
	// prod.tfvars:3", "set by an expression", "sensitive: edit it by hand"); "" when the
	// suggestion is an edit.
	Reason string

	offset int // byte offset of Old in File, plus one; 0 when unknown (see Patch)
}

// Foldable reports whether the suggestion is an edit Patch can make.
func (s Suggestion) Foldable() bool { return s.Reason == "" && s.File != "" }

// String is one line: `main.tf:12  content = "v1" → "v2"` for an edit, or
// `fakecloud_object.x.content: set by var.size in prod.tfvars:3` for a reason.
func (s Suggestion) String() string {
	if !s.Foldable() {
		return fmt.Sprintf("%s.%s: %s", s.Address, s.Attribute, s.Reason)
	}
	return fmt.Sprintf("%s:%d  %s = %s → %s", s.File, s.Line, s.Attribute, oneLine(s.Old), oneLine(s.New))
}

// oneLine keeps a multi-line heredoc or list on one line of a report.
func oneLine(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r", ""), "\n", "⏎")
}

// Suggest returns, for every drifted attribute of the drifted resources (a plan's
// Changes.Drift: Before is the state, which the code produced; After is what the
// infrastructure now has), the edit to p's code that accepts the drift, or why there is
// none. Attributes the code already says as After are left out. root is the repository
// root that p.Dir and p.Modules are relative to. Suggestions come in the order of
// drifted and their attributes, except that a map literal gaining or losing keys is
// rewritten whole, after the resource's other suggestions; one literal shared by several
// instances (count, for_each, a module called twice) is suggested once.
func Suggest(root string, p project.Project, drifted []plan.Resource) []Suggestion {
	c := &config{root: root, modules: map[string]*module{}}
	dirs := projectDirs{dir: p.Dir, modules: p.Modules, varFiles: p.VarFiles}
	if dirs.dir == "" {
		dirs.dir = "."
	}
	var out []Suggestion
	for _, r := range drifted {
		if r.Mode == "data" {
			continue
		}
		out = append(out, c.resource(dirs, r)...)
	}
	return dedupe(out)
}

// resource folds back one drifted resource.
func (c *config) resource(p projectDirs, r plan.Resource) []Suggestion {
	var out []Suggestion
	fail := func(a plan.Attribute, why reason) {
		out = append(out, Suggestion{Address: r.Address, Attribute: a.Path, File: why.file, Line: why.line, Reason: why.text})
	}
	addr, ok := parseAddress(r.Address)
	if !ok {
		for _, a := range r.Attributes {
			fail(a, reason{text: "address not understood"})
		}
		return out
	}
	dir, why := c.moduleDir(p, addr.modules)
	if why.text != "" {
		for _, a := range r.Attributes {
			fail(a, why)
		}
		return out
	}
	m := c.module(dir)
	blocks := m.blocks("resource", addr.typ, addr.name)
	if len(blocks) == 0 {
		for _, a := range r.Attributes {
			fail(a, reason{text: fmt.Sprintf("resource block not found in %s%s", dir, problemsNote(m))})
		}
		return out
	}
	rw := &rewrites{}
	for _, a := range r.Attributes {
		w := walker{c: c, p: p, calls: addr.modules, dir: dir}
		if why, ok := ignored(blocks, a.Path); ok {
			fail(a, why)
			continue
		}
		if a.Before.Kind == plan.KindSensitive || a.After.Kind == plan.KindSensitive {
			why := w.locate(blocks, a.Path)
			why.text = "sensitive: edit it by hand"
			fail(a, why)
			continue
		}
		before, err1 := planValue(a.Before)
		after, err2 := planValue(a.After)
		if err1 != nil || err2 != nil {
			fail(a, reason{text: "the plan does not show the whole value: edit it by hand"})
			continue
		}
		steps, ok := parsePath(a.Path)
		if !ok {
			fail(a, reason{text: "attribute path not understood"})
			continue
		}
		e, why := w.attribute(blocks, steps, before, after)
		switch {
		case why.text != "":
			fail(a, why)
		case e == nil: // the code already says it
		default:
			e.attr = a.Path
			if !rw.add(e) {
				out = append(out, e.suggestion(r.Address))
			}
		}
	}
	return append(out, rw.suggestions(r.Address)...)
}

// edit replaces the source of expr (in file) with text.
type edit struct {
	file *source
	expr hclsyntax.Expression
	text string
	attr string
	// obj and item are set when expr is an item's value in a map literal (item is its
	// index), so a rewrite of that map can take the edit in.
	obj  *hclsyntax.ObjectConsExpr
	item int
	// For map rewrites: add or remove a key of obj instead of editing a value.
	addKey, removeKey bool
	key               string
}

func (e *edit) suggestion(addr string) Suggestion {
	rng := e.expr.Range()
	return Suggestion{
		Address: addr, Attribute: e.attr, File: e.file.path, Line: rng.Start.Line,
		Old: string(rng.SliceBytes(e.file.src)), New: e.text, offset: rng.Start.Byte + 1,
	}
}

// dedupe drops repeated edits of one literal (instances sharing a block) and turns
// edits that disagree about one literal, or overlap, into reasons.
func dedupe(in []Suggestion) []Suggestion {
	type span struct {
		file       string
		start, end int
	}
	var out []Suggestion
	seen := map[span]int{}
	var spans []span
	for _, s := range in {
		if !s.Foldable() || s.offset == 0 {
			out = append(out, s)
			continue
		}
		sp := span{s.File, s.offset, s.offset + len(s.Old)}
		if i, ok := seen[sp]; ok {
			if out[i].New != s.New && out[i].Reason == "" {
				out[i] = conflict(out[i], fmt.Sprintf("instances drifted apart (%s and %s): the literal is shared, edit it by hand", out[i].Address, s.Address))
			}
			continue
		}
		overlap := false
		for _, o := range spans {
			if o.file == sp.file && o.start < sp.end && sp.start < o.end {
				overlap = true
			}
		}
		if overlap {
			out = append(out, conflict(s, "overlaps another suggested edit: edit it by hand"))
			continue
		}
		seen[sp] = len(out)
		spans = append(spans, sp)
		out = append(out, s)
	}
	return out
}

func conflict(s Suggestion, why string) Suggestion {
	s.Old, s.New, s.Reason, s.offset = "", "", why, 0
	return s
}

// rewrites collects the key additions and removals of map literals: such a map is
// written anew, with every edit of its items.
type rewrites struct {
	maps  []*hclsyntax.ObjectConsExpr
	edits map[*hclsyntax.ObjectConsExpr][]*edit
	leafs []*edit // item edits waiting to see whether their map is rewritten
}

// add takes e in when it belongs to a map rewrite (now or possibly later); it returns
// false when e is an ordinary edit.
func (rw *rewrites) add(e *edit) bool {
	if rw.edits == nil {
		rw.edits = map[*hclsyntax.ObjectConsExpr][]*edit{}
	}
	if e.addKey || e.removeKey {
		if _, ok := rw.edits[e.obj]; !ok {
			rw.maps = append(rw.maps, e.obj)
		}
		rw.edits[e.obj] = append(rw.edits[e.obj], e)
		return true
	}
	if e.obj != nil {
		rw.leafs = append(rw.leafs, e)
		return true
	}
	return false
}

func (rw *rewrites) suggestions(addr string) []Suggestion {
	var out []Suggestion
	for _, e := range rw.leafs {
		if _, ok := rw.edits[e.obj]; ok {
			rw.edits[e.obj] = append(rw.edits[e.obj], e)
		} else {
			out = append(out, e.suggestion(addr))
		}
	}
	for _, obj := range rw.maps {
		out = append(out, rewriteMap(addr, obj, rw.edits[obj]))
	}
	return out
}

// rewriteMap writes a map literal anew with keys added, removed and values edited, in
// its one-line or one-item-per-line style. Comments inside it would be lost, so such a
// map is left to a human.
func rewriteMap(addr string, obj *hclsyntax.ObjectConsExpr, edits []*edit) Suggestion {
	file := edits[0].file
	rng := obj.Range()
	old := string(rng.SliceBytes(file.src))
	attr := mapPath(edits[0])
	s := Suggestion{Address: addr, Attribute: attr, File: file.path, Line: rng.Start.Line}
	toks, _ := hclsyntax.LexExpression([]byte(old), file.path, rng.Start)
	for _, t := range toks {
		if t.Type == hclsyntax.TokenComment {
			s.Reason = "the map literal holds comments: edit it by hand"
			return s
		}
	}
	type kv struct{ key, value string }
	var items []kv
	removed := map[int]bool{}
	values := map[int]string{}
	var added []kv
	for _, e := range edits {
		switch {
		case e.removeKey:
			removed[e.item] = true
		case e.addKey:
			added = append(added, kv{keyText(e.key), e.text})
		default:
			values[e.item] = e.text
		}
	}
	for i, it := range obj.Items {
		if removed[i] {
			continue
		}
		v, ok := values[i]
		if !ok {
			v = string(it.ValueExpr.Range().SliceBytes(file.src))
		}
		items = append(items, kv{string(it.KeyExpr.Range().SliceBytes(file.src)), v})
	}
	sort.SliceStable(added, func(i, j int) bool { return added[i].key < added[j].key })
	items = append(items, added...)

	var b strings.Builder
	switch {
	case len(items) == 0:
		b.WriteString("{}")
	case rng.Start.Line == rng.End.Line:
		b.WriteString("{ ")
		for i, it := range items {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(it.key + " = " + it.value)
		}
		b.WriteString(" }")
	default:
		closing := lineIndent(file.src, rng.End.Byte-1)
		indent := closing + "  "
		if len(obj.Items) > 0 {
			indent = lineIndent(file.src, obj.Items[0].KeyExpr.Range().Start.Byte)
		}
		width := 0
		for _, it := range items {
			if strings.Contains(it.value, "\n") {
				width = 0
				break
			}
			width = max(width, len(it.key))
		}
		b.WriteString("{\n")
		for _, it := range items {
			b.WriteString(indent + it.key + strings.Repeat(" ", max(0, width-len(it.key))) + " = " + it.value + "\n")
		}
		b.WriteString(closing + "}")
	}
	s.Old, s.New, s.offset = old, b.String(), rng.Start.Byte+1
	return s
}

// mapPath is the attribute path of the map an edit of one of its keys belongs to.
func mapPath(e *edit) string {
	if e.addKey || e.removeKey || e.obj != nil {
		if i := strings.LastIndexAny(e.attr, ".["); i > 0 {
			return e.attr[:i]
		}
	}
	return e.attr
}

// lineIndent is the leading white space of the line holding byte offset off.
func lineIndent(src []byte, off int) string {
	start := off
	for start > 0 && src[start-1] != '\n' {
		start--
	}
	end := start
	for end < len(src) && (src[end] == ' ' || src[end] == '\t') {
		end++
	}
	return string(src[start:end])
}

func sortedKeys(m map[string]cty.Value) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
