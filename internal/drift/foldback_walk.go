package drift

import (
	"fmt"

	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// walker finds the expression that sets one attribute inside a resource's blocks.
type walker struct {
	c     *config
	p     projectDirs
	calls []string // module calls from the project to dir
	dir   string   // the module directory declaring the resource
}

// found is an expression that sets (part of) an attribute.
type found struct {
	file *source
	expr hclsyntax.Expression
	rest []step // the path steps below expr
}

// locate says where an attribute is set, for a reason that must not show its value.
func (w walker) locate(blocks []placed, path string) reason {
	steps, ok := parsePath(path)
	if !ok {
		return reason{}
	}
	f, why := w.body(blocks, steps)
	if why.text != "" || f.expr == nil {
		return reason{}
	}
	return reason{file: f.file.path, line: f.expr.Range().Start.Line}
}

// body resolves the first steps of a path through a block's attributes and nested
// blocks. Of several blocks (a resource and its overrides) the last that sets it wins.
func (w walker) body(blocks []placed, steps []step) (found, reason) {
	var f found
	var why reason
	for _, pb := range blocks {
		g, r := w.inBody(pb.file, pb.block.Body, steps)
		if r.text == "" && g.expr != nil {
			f, why = g, reason{}
		} else if f.expr == nil && (why.text == "" || r.text != notSet) {
			why = r
		}
	}
	if f.expr == nil && why.text == notSet {
		why.file, why.line = blocks[0].file.path, blocks[0].block.DefRange().Start.Line
	}
	return f, why
}

const notSet = "not set in the configuration (a default or a computed value)"

func (w walker) inBody(file *source, body *hclsyntax.Body, steps []step) (found, reason) {
	name := steps[0].key
	if name == "" {
		return found{}, reason{text: "attribute path not understood"}
	}
	if a := body.Attributes[name]; a != nil {
		return found{file: file, expr: a.Expr, rest: steps[1:]}, reason{}
	}
	var nested []*hclsyntax.Block
	for _, b := range body.Blocks {
		switch {
		case b.Type == name:
			nested = append(nested, b)
		case b.Type == "dynamic" && len(b.Labels) == 1 && b.Labels[0] == name:
			return found{}, reason{text: fmt.Sprintf("set by a dynamic %q block", name), file: file.path, line: b.DefRange().Start.Line}
		}
	}
	switch {
	case len(nested) == 0:
		return found{}, reason{text: notSet}
	case len(nested) > 1:
		// The plan's index of a set-nested block is not the order of the code.
		return found{}, reason{text: fmt.Sprintf("set in one of several %q blocks: edit it by hand", name), file: file.path, line: nested[0].DefRange().Start.Line}
	}
	rest := steps[1:]
	if len(rest) > 0 && rest[0].key == "" && rest[0].index == 0 {
		rest = rest[1:]
	}
	if len(rest) == 0 {
		return found{}, reason{text: fmt.Sprintf("the whole %q block changed: edit it by hand", name), file: file.path, line: nested[0].DefRange().Start.Line}
	}
	return w.inBody(file, nested[0].Body, rest)
}

// attribute returns the edit that makes the code say after where it says before, nil
// when the code already says after, or why there is no such edit.
func (w walker) attribute(blocks []placed, steps []step, before, after cty.Value) (*edit, reason) {
	f, why := w.body(blocks, steps)
	if why.text != "" {
		return nil, why
	}
	return w.expr(f.file, f.expr, f.rest, before, after, nil, 0)
}

func (w walker) expr(file *source, expr hclsyntax.Expression, rest []step, before, after cty.Value, obj *hclsyntax.ObjectConsExpr, item int) (*edit, reason) {
	at := reason{file: file.path, line: expr.Range().Start.Line}
	if len(rest) == 0 {
		return w.leaf(file, expr, before, after, obj, item)
	}
	switch e := expr.(type) {
	case *hclsyntax.ObjectConsExpr:
		key := rest[0].key
		if key == "" {
			break
		}
		for i, it := range e.Items {
			if k, ok := objectKey(it); ok && k == key {
				if len(rest) == 1 && after.IsNull() {
					return &edit{file: file, expr: e, obj: e, item: i, removeKey: true, key: key}, reason{}
				}
				return w.expr(file, it.ValueExpr, rest[1:], before, after, e, i)
			}
		}
		if len(rest) > 1 {
			at.text = notSet
			return nil, at
		}
		if !before.IsNull() {
			at.text = fmt.Sprintf("the code does not set %q, which is not applied yet: edit it by hand", key)
			return nil, at
		}
		text, err := newText("", after)
		if err != nil {
			at.text = "the new value cannot be written as a literal: edit it by hand"
			return nil, at
		}
		return &edit{file: file, expr: e, obj: e, addKey: true, key: key, text: text}, reason{}
	case *hclsyntax.TupleConsExpr:
		if rest[0].key == "" && rest[0].index < len(e.Exprs) {
			return w.expr(file, e.Exprs[rest[0].index], rest[1:], before, after, nil, 0)
		}
	}
	if !isLiteral(expr) {
		return nil, w.origin(at, expr)
	}
	at.text = notSet
	return nil, at
}

func (w walker) leaf(file *source, expr hclsyntax.Expression, before, after cty.Value, obj *hclsyntax.ObjectConsExpr, item int) (*edit, reason) {
	at := reason{file: file.path, line: expr.Range().Start.Line}
	v, ok := literalValue(expr)
	if !ok {
		return nil, w.origin(at, expr)
	}
	if sameValue(v, after) {
		return nil, reason{}
	}
	old := string(expr.Range().SliceBytes(file.src))
	if !sameValue(v, before) {
		at.text = fmt.Sprintf("the code says %s, which is not applied yet: edit it by hand", oneLine(old))
		return nil, at
	}
	text, err := newText(old, after)
	if err != nil {
		at.text = "the new value cannot be written as a literal: edit it by hand"
		return nil, at
	}
	return &edit{file: file, expr: expr, text: text, obj: obj, item: item}, reason{}
}

// origin names where a non-literal value comes from; at is where the expression is.
func (w walker) origin(at reason, expr hclsyntax.Expression) reason {
	r := w.c.origin(w.p, w.calls, w.dir, expr)
	if r.file == "" {
		r.file, r.line = at.file, at.line
	}
	return r
}
