package plan

import (
	"encoding/json"
	"strconv"
)

// step is one step of a path into a value: an attribute or map key, or a list index.
type step struct {
	key     string
	index   int
	isIndex bool
}

// pop leaves the last step of the path, and its rendering.
func (d *differ) pop() {
	d.path = d.path[:len(d.path)-1]
	if len(d.pathEnds) > len(d.path) {
		d.pathEnds = d.pathEnds[:len(d.path)]
	}
}

// pathString is w.path(d.path), rendering only the steps not rendered yet.
func (d *differ) pathString() string {
	for i := len(d.pathEnds); i < len(d.path); i++ {
		start := 0
		if i > 0 {
			start = d.pathEnds[i-1]
		}
		d.pathText = d.w.appendStep(d.pathText[:start], i, d.path[i])
		d.pathEnds = append(d.pathEnds, len(d.pathText))
	}
	if len(d.path) == 0 {
		return ""
	}
	return string(d.pathText[:d.pathEnds[len(d.path)-1]])
}

// path renders a path: attribute names and identifier keys dotted, other keys quoted in
// brackets, indexes in brackets.
func (w *writer) path(p []step) string {
	var b []byte
	for i, e := range p {
		b = w.appendStep(b, i, e)
	}
	return string(b)
}

// appendStep appends the rendering of step i of a path.
func (w *writer) appendStep(b []byte, i int, e step) []byte {
	if e.isIndex {
		b = append(b, '[')
		b = strconv.AppendInt(b, int64(e.index), 10)
		return append(b, ']')
	}
	k := w.mask.String(e.key)
	if isIdent(k) {
		if i > 0 {
			b = append(b, '.')
		}
		return append(b, k...)
	}
	b = append(b, '[')
	b = strconv.AppendQuote(b, k)
	return append(b, ']')
}

// sensitivePrefix is p up to the first step that is marked sensitive on either side (the
// whole of p when none is): the steps after it are keys or indexes of a secret value.
func sensitivePrefix(p []step, bs, as any) []step {
	for i, s := range p {
		if s.isIndex {
			bs, as = index(bs, s.index), index(as, s.index)
		} else {
			bs, as = field(bs, s.key), field(as, s.key)
		}
		if isTrue(bs) || isTrue(as) {
			return p[:i+1]
		}
	}
	return p
}

// replacePaths converts tfjson replace_paths (lists of strings and numbers) to paths.
func replacePaths(raw []any) [][]step {
	out := make([][]step, 0, len(raw))
	for _, r := range raw {
		if steps, ok := r.([]any); ok {
			out = append(out, toSteps(steps))
		}
	}
	return out
}

// toSteps converts one path of strings (keys) and numbers (indexes); other elements are
// dropped.
func toSteps(raw []any) []step {
	p := make([]step, 0, len(raw))
	for _, s := range raw {
		switch t := s.(type) {
		case string:
			p = append(p, step{key: t})
		case json.Number:
			n, err := strconv.Atoi(t.String())
			if err != nil {
				p = append(p, step{key: t.String()})
			} else {
				p = append(p, step{index: n, isIndex: true})
			}
		case float64:
			p = append(p, step{index: int(t), isIndex: true})
		case int: // paths written in Go (tests)
			p = append(p, step{index: t, isIndex: true})
		}
	}
	return p
}
