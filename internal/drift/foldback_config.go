package drift

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	hcljson "github.com/hashicorp/hcl/v2/json"
	"github.com/zclconf/go-cty/cty"
)

// source is one parsed .tf file.
type source struct {
	path string // root-relative, slash-separated
	src  []byte
	body *hclsyntax.Body
}

// module is the .tf files of one directory: the project's root module or a local module.
type module struct {
	dir      string // root-relative
	files    []*source
	problems []string // files that do not parse, "file:line: syntax error"
}

// config reads the modules of one project once.
type config struct {
	root    string
	modules map[string]*module
}

func (c *config) module(dir string) *module {
	if m, ok := c.modules[dir]; ok {
		return m
	}
	m := &module{dir: dir}
	c.modules[dir] = m
	entries, _ := os.ReadDir(filepath.Join(c.root, filepath.FromSlash(dir)))
	var names []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".tf") {
			names = append(names, e.Name())
		}
	}
	// Override files come last: where they set an attribute, theirs is the value.
	slices.SortStableFunc(names, func(a, b string) int {
		if ao, bo := isOverride(a), isOverride(b); ao != bo {
			if ao {
				return 1
			}
			return -1
		}
		return strings.Compare(a, b)
	})
	for _, name := range names {
		rel := path.Join(dir, name)
		src, err := os.ReadFile(filepath.Join(c.root, filepath.FromSlash(rel)))
		if err != nil {
			m.problems = append(m.problems, fmt.Sprintf("%s: cannot be read", rel))
			continue
		}
		f, diags := hclsyntax.ParseConfig(src, rel, hcl.InitialPos)
		if diags.HasErrors() {
			m.problems = append(m.problems, fmt.Sprintf("%s: syntax error", location(rel, diags)))
			continue
		}
		m.files = append(m.files, &source{path: rel, src: src, body: f.Body.(*hclsyntax.Body)})
	}
	return m
}

func isOverride(name string) bool {
	base := strings.TrimSuffix(name, ".tf")
	return base == "override" || strings.HasSuffix(base, "_override")
}

func location(file string, diags hcl.Diagnostics) string {
	for _, d := range diags {
		if d.Subject != nil {
			return fmt.Sprintf("%s:%d", file, d.Subject.Start.Line)
		}
	}
	return file
}

// placed is a block and the file it is in.
type placed struct {
	file  *source
	block *hclsyntax.Block
}

// blocks returns the blocks of one type whose labels are labels, in file order
// (override files last).
func (m *module) blocks(typ string, labels ...string) []placed {
	var out []placed
	for _, f := range m.files {
		for _, b := range f.body.Blocks {
			if b.Type == typ && slices.Equal(b.Labels, labels) {
				out = append(out, placed{f, b})
			}
		}
	}
	return out
}

// address is a resource instance address taken apart.
type address struct {
	modules []string // module call names, outermost first
	mode    string   // "managed" or "data"
	typ     string
	name    string
}

// parseAddress reads an address such as module.app["a"].fakecloud_object.x[0] with the
// HCL traversal parser; instance keys are dropped, because every instance shares its
// block's code.
func parseAddress(addr string) (address, bool) {
	tr, diags := hclsyntax.ParseTraversalAbs([]byte(addr), "address", hcl.InitialPos)
	if diags.HasErrors() {
		return address{}, false
	}
	var names []string
	for _, step := range tr {
		switch s := step.(type) {
		case hcl.TraverseRoot:
			names = append(names, s.Name)
		case hcl.TraverseAttr:
			names = append(names, s.Name)
		}
	}
	a := address{mode: "managed"}
	for len(names) >= 2 && names[0] == "module" {
		a.modules = append(a.modules, names[1])
		names = names[2:]
	}
	if len(names) == 3 && names[0] == "data" {
		a.mode, names = "data", names[1:]
	}
	if len(names) != 2 {
		return address{}, false
	}
	a.typ, a.name = names[0], names[1]
	return a, true
}

// step is one step of an attribute path: a name (attribute or map key) or a list index.
type step struct {
	key   string
	index int // when key is ""
}

// parsePath reads a plan attribute path (content, tags.env, tags["Name tag"], rule[0].port).
func parsePath(p string) ([]step, bool) {
	if p == "" {
		return nil, false
	}
	tr, diags := hclsyntax.ParseTraversalAbs([]byte(p), "path", hcl.InitialPos)
	if diags.HasErrors() {
		return nil, false
	}
	var steps []step
	for _, s := range tr {
		switch t := s.(type) {
		case hcl.TraverseRoot:
			steps = append(steps, step{key: t.Name})
		case hcl.TraverseAttr:
			steps = append(steps, step{key: t.Name})
		case hcl.TraverseIndex:
			switch {
			case t.Key.Type().Equals(cty.String):
				steps = append(steps, step{key: t.Key.AsString()})
			case t.Key.Type().Equals(cty.Number):
				n, acc := t.Key.AsBigFloat().Int64()
				if acc != 0 || n < 0 {
					return nil, false
				}
				steps = append(steps, step{index: int(n)})
			default:
				return nil, false
			}
		default:
			return nil, false
		}
	}
	return steps, true
}

// moduleDir follows the module calls of an address from the project's directory to the
// directory whose code declares the resource. why says what stops it (with where).
func (c *config) moduleDir(p projectDirs, calls []string) (dir string, why reason) {
	dir = p.dir
	for i, name := range calls {
		m := c.module(dir)
		found := m.blocks("module", name)
		if len(found) == 0 {
			return "", reason{text: fmt.Sprintf("module %q is not declared in %s%s", name, dir, problemsNote(m))}
		}
		call := found[len(found)-1]
		attr := call.block.Body.Attributes["source"]
		if attr == nil {
			return "", reason{text: fmt.Sprintf("module %q has no source", name), file: call.file.path, line: call.block.DefRange().Start.Line}
		}
		v, ok := literalValue(attr.Expr)
		at := reason{file: call.file.path, line: attr.SrcRange.Start.Line}
		if !ok || v.IsNull() || !v.Type().Equals(cty.String) {
			at.text = fmt.Sprintf("set in module %q, whose source is not a literal", strings.Join(calls[:i+1], "."))
			return "", at
		}
		src := v.AsString()
		if !strings.HasPrefix(src, "./") && !strings.HasPrefix(src, "../") {
			at.text = fmt.Sprintf("set in module outside the repository (module.%s from %q)", strings.Join(calls[:i+1], ".module."), src)
			return "", at
		}
		next := path.Join(dir, src)
		if !p.inRepo(next) {
			at.text = fmt.Sprintf("set in module outside the repository (module.%s from %q)", strings.Join(calls[:i+1], ".module."), src)
			return "", at
		}
		dir = next
	}
	return dir, reason{}
}

func problemsNote(m *module) string {
	if len(m.problems) == 0 {
		return ""
	}
	return " (" + strings.Join(m.problems, "; ") + ")"
}

// projectDirs is what Suggest needs of a project.
type projectDirs struct {
	dir      string
	modules  []string
	varFiles []string // relative to dir
}

// inRepo reports whether a root-relative directory is inside the repository: below the
// root, or one of the project's known local modules (which may lie above a -C root).
func (p projectDirs) inRepo(dir string) bool {
	if dir != ".." && !strings.HasPrefix(dir, "../") {
		return true
	}
	return slices.Contains(p.modules, dir)
}

// reason is why an attribute cannot be folded back, and where its value comes from.
type reason struct {
	text string
	file string
	line int
}

// origin says where the value of a non-literal expression comes from.
func (c *config) origin(p projectDirs, calls []string, dir string, expr hclsyntax.Expression) reason {
	tr, ok := expr.(*hclsyntax.ScopeTraversalExpr)
	if !ok {
		var refs []string
		for _, t := range expr.Variables() {
			if s := traversalName(t); s != "" && !slices.Contains(refs, s) {
				refs = append(refs, s)
			}
		}
		if len(refs) == 0 {
			return reason{text: "set by an expression"}
		}
		return reason{text: "set by an expression using " + strings.Join(refs, ", ")}
	}
	name := traversalName(tr.Traversal)
	if tr.Traversal.RootName() != "var" || len(tr.Traversal) != 2 {
		return reason{text: "set by " + name}
	}
	variable := strings.TrimPrefix(name, "var.")
	if len(calls) > 0 {
		parentDir, _ := c.moduleDir(p, calls[:len(calls)-1])
		call := c.module(parentDir).blocks("module", calls[len(calls)-1])
		if len(call) > 0 {
			last := call[len(call)-1]
			if a := last.block.Body.Attributes[variable]; a != nil {
				return reason{
					text: fmt.Sprintf("set by %s, given by module.%s in %s:%d", name, calls[len(calls)-1], last.file.path, a.SrcRange.Start.Line),
					file: last.file.path, line: a.SrcRange.Start.Line,
				}
			}
		}
	} else if r, ok := c.varFileValue(p, variable); ok {
		r.text = fmt.Sprintf("set by %s in %s:%d", name, r.file, r.line)
		return r
	}
	for _, v := range c.module(dir).blocks("variable", variable) {
		if a := v.block.Body.Attributes["default"]; a != nil {
			return reason{
				text: fmt.Sprintf("set by %s (its default in %s:%d)", name, v.file.path, a.SrcRange.Start.Line),
				file: v.file.path, line: a.SrcRange.Start.Line,
			}
		}
	}
	return reason{text: fmt.Sprintf("set by %s (no default: given with -var or TF_VAR_%s)", name, variable)}
}

func traversalName(t hcl.Traversal) string {
	var b strings.Builder
	for _, s := range t {
		switch x := s.(type) {
		case hcl.TraverseRoot:
			b.WriteString(x.Name)
		case hcl.TraverseAttr:
			b.WriteString("." + x.Name)
		default:
			return b.String()
		}
	}
	return b.String()
}

// varFileValue finds the variable definitions file that sets a root module variable,
// in terraform's precedence (the project's var files, last first, then *.auto.tfvars in
// reverse lexical order, then terraform.tfvars).
func (c *config) varFileValue(p projectDirs, variable string) (reason, bool) {
	var files []string
	for i := len(p.varFiles) - 1; i >= 0; i-- {
		files = append(files, path.Join(p.dir, filepath.ToSlash(p.varFiles[i])))
	}
	entries, _ := os.ReadDir(filepath.Join(c.root, filepath.FromSlash(p.dir)))
	var auto []string
	for _, e := range entries {
		if n := e.Name(); !e.IsDir() && (strings.HasSuffix(n, ".auto.tfvars") || strings.HasSuffix(n, ".auto.tfvars.json")) {
			auto = append(auto, path.Join(p.dir, n))
		}
	}
	slices.Sort(auto)
	slices.Reverse(auto)
	files = append(files, auto...)
	files = append(files, path.Join(p.dir, "terraform.tfvars.json"), path.Join(p.dir, "terraform.tfvars"))
	for _, rel := range files {
		src, err := os.ReadFile(filepath.Join(c.root, filepath.FromSlash(rel)))
		if err != nil {
			continue
		}
		var f *hcl.File
		if strings.HasSuffix(rel, ".json") {
			f, _ = hcljson.Parse(src, rel)
		} else {
			f, _ = hclsyntax.ParseConfig(src, rel, hcl.InitialPos)
		}
		if f == nil {
			continue
		}
		attrs, _ := f.Body.JustAttributes()
		if a, ok := attrs[variable]; ok {
			return reason{file: rel, line: a.Range.Start.Line}, true
		}
	}
	return reason{}, false
}

// ignored reports whether the resource's lifecycle.ignore_changes covers the attribute path
// (its first step, or "all"): terraform plans no change for it, so the code is not what is
// wrong and there is nothing to fold back. It returns where the rule is written.
func ignored(blocks []placed, path string) (reason, bool) {
	first, _, _ := strings.Cut(path, ".")
	first, _, _ = strings.Cut(first, "[")
	for _, pb := range blocks {
		for _, lc := range pb.block.Body.Blocks {
			if lc.Type != "lifecycle" {
				continue
			}
			attr, ok := lc.Body.Attributes["ignore_changes"]
			if !ok {
				continue
			}
			line := attr.SrcRange.Start.Line
			why := reason{file: pb.file.path, line: line, text: fmt.Sprintf("ignored by lifecycle.ignore_changes in %s:%d: terraform plans no change for it", pb.file.path, line)}
			if kw, ok := attr.Expr.(*hclsyntax.ScopeTraversalExpr); ok && kw.Traversal.RootName() == "all" {
				return why, true
			}
			if tup, ok := attr.Expr.(*hclsyntax.TupleConsExpr); ok {
				for _, e := range tup.Exprs {
					if tr, ok := e.(*hclsyntax.ScopeTraversalExpr); ok && tr.Traversal.RootName() == first {
						return why, true
					}
				}
			}
		}
	}
	return reason{}, false
}
