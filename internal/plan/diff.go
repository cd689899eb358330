package plan

import (
	"encoding/json"
	"slices"
	"strconv"
)

// maxPairing bounds the element matching of two lists (before × after comparisons); longer
// lists are compared index by index.
const maxPairing = 4096

// differ walks a before and an after value together with their markers and collects the
// changed leaves as Attributes. Redaction happens on the way: a value under a true
// sensitivity marker (on either side) is never rendered, nor walked into, so even the keys of
// a sensitive map stay hidden.
type differ struct {
	w       *writer
	replace [][]any // replace_paths, elements string (attribute / key) or int (index)
	path    []any
	attrs   []Attribute
	// pathText holds the rendering of path's first len(pathEnds) steps, step i ending at
	// pathEnds[i]: a leaf's path is rendered once per step, not once per leaf.
	pathText []byte
	pathEnds []int
}

// diff records the changes from b to a. bs/as are the before/after sensitivity markers,
// au the after_unknown marker; all mirror the shape of the values.
func (d *differ) diff(b, a, bs, as, au any) {
	if isTrue(bs) || isTrue(as) {
		if !equal(b, a) || hasTrue(au) {
			d.emit(valueSensitive, valueSensitive)
		}
		return
	}
	if isTrue(au) {
		d.emit(d.w.value(b, bs, nil), valueUnknown)
		return
	}
	switch bt := b.(type) {
	case map[string]any:
		if at, ok := a.(map[string]any); ok {
			d.diffMaps(bt, at, bs, as, au)
			return
		}
	case []any:
		if at, ok := a.([]any); ok {
			d.diffLists(bt, at, bs, as, au)
			return
		}
	}
	if equal(b, a) && !hasTrue(au) {
		return
	}
	if b == nil && (!isPrimitive(a) || au != nil && !isPrimitive(au)) {
		d.leaves(a, as, au, true)
		return
	}
	if a == nil && !isPrimitive(b) && !hasTrue(au) {
		d.leaves(b, bs, nil, false)
		return
	}
	d.emitPair(b, a, bs, as, au)
}

func (d *differ) diffMaps(b, a map[string]any, bs, as, au any) {
	keys := sortedKeys(a, au)
	n := len(keys)
	for k := range b {
		if _, ok := a[k]; !ok && !inSorted(keys[:n], k) {
			keys = append(keys, k)
		}
	}
	if len(keys) > n {
		slices.Sort(keys)
	}
	for _, k := range keys {
		d.path = append(d.path, k)
		d.diff(b[k], a[k], field(bs, k), field(as, k), field(au, k))
		d.pop()
	}
}

func (d *differ) diffLists(b, a []any, bs, as, au any) {
	marked := hasTrue(bs) || hasTrue(as) || hasTrue(au)
	if !marked && allPrimitive(b) && allPrimitive(a) {
		// A list of strings or numbers reads best as a unit: ["10.0.0.0/8"] → ["0.0.0.0/0"].
		if !equal(b, a) {
			d.emitPair(b, a, bs, as, au)
		}
		return
	}
	na := len(a)
	if ul, ok := au.([]any); ok && len(ul) > na {
		na = len(ul)
	}
	for _, p := range d.pair(b, a, na, bs, as, au) {
		i, j := p[0], p[1]
		var bv, av, bsi, asj, auj any
		idx := j
		if i >= 0 {
			bv, bsi = b[i], index(bs, i)
		}
		if j >= 0 {
			av, asj, auj = elem(a, j), index(as, j), index(au, j)
		} else {
			idx = i
		}
		d.path = append(d.path, idx)
		d.diff(bv, av, bsi, asj, auj)
		d.pop()
	}
}

// pair matches list elements: equal elements (sets, reordered lists) pair up and produce no
// output; the rest pair in order, and leftovers are additions (-1, j) or removals (i, -1).
func (d *differ) pair(b, a []any, na int, bs, as, au any) [][2]int {
	var pairs [][2]int
	if len(b)*na > maxPairing {
		for k := 0; k < max(len(b), na); k++ {
			i, j := k, k
			if i >= len(b) {
				i = -1
			}
			if j >= na {
				j = -1
			}
			pairs = append(pairs, [2]int{i, j})
		}
		return pairs
	}
	usedA := make([]bool, na)
	var restB []int
	for i := range b {
		found := false
		for j := 0; j < na; j++ {
			if !usedA[j] && j < len(a) && equal(b[i], a[j]) && equal(index(bs, i), index(as, j)) && !hasTrue(index(au, j)) {
				usedA[j], found = true, true
				break
			}
		}
		if !found {
			restB = append(restB, i)
		}
	}
	var restA []int
	for j, used := range usedA {
		if !used {
			restA = append(restA, j)
		}
	}
	for k := 0; k < max(len(restB), len(restA)); k++ {
		p := [2]int{-1, -1}
		if k < len(restB) {
			p[0] = restB[k]
		}
		if k < len(restA) {
			p[1] = restA[k]
		}
		pairs = append(pairs, p)
	}
	return pairs
}

// leaves records every non-null leaf of one side (after for creates and added blocks,
// before for removed blocks).
func (d *differ) leaves(v, sens, unk any, after bool) {
	switch {
	case isTrue(sens):
		if v != nil || isTrue(unk) {
			d.emitSide(valueSensitive, after)
		}
		return
	case isTrue(unk):
		d.emitSide(valueUnknown, after)
		return
	}
	if v == nil { // an absent block may still have unknown attributes
		switch unk.(type) {
		case map[string]any:
			v = map[string]any{}
		case []any:
			v = []any{}
		}
	}
	switch t := v.(type) {
	case nil:
	case map[string]any:
		for _, k := range sortedKeys(t, unk) {
			d.path = append(d.path, k)
			d.leaves(t[k], field(sens, k), field(unk, k), after)
			d.pop()
		}
	case []any:
		n := len(t)
		if ul, ok := unk.([]any); ok && len(ul) > n {
			n = len(ul)
		}
		if n == 0 {
			return
		}
		if allPrimitive(t) && !hasTrue(sens) && !hasTrue(unk) {
			d.emitSide(d.w.value(t, sens, unk), after)
			return
		}
		for i := 0; i < n; i++ {
			d.path = append(d.path, i)
			d.leaves(elem(t, i), index(sens, i), index(unk, i), after)
			d.pop()
		}
	default:
		d.emitSide(d.w.value(v, sens, unk), after)
	}
}

func (d *differ) emitPair(b, a, bs, as, au any) {
	d.emit(d.w.pair(b, a, bs, as, au))
}

func (d *differ) emitSide(v Value, after bool) {
	if after {
		d.emit(valueNull, v)
	} else {
		d.emit(v, valueNull)
	}
}

func (d *differ) emit(before, after Value) {
	d.attrs = append(d.attrs, Attribute{
		Path:              d.pathString(),
		Before:            before,
		After:             after,
		ForcesReplacement: d.forces(),
	})
}

// forces reports whether the current path is, contains or lies inside a replace path.
func (d *differ) forces() bool {
	for _, rp := range d.replace {
		n := min(len(rp), len(d.path))
		if n == 0 {
			continue
		}
		same := true
		for k := 0; k < n; k++ {
			if rp[k] != d.path[k] {
				same = false
				break
			}
		}
		if same {
			return true
		}
	}
	return false
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
func (w *writer) path(p []any) string {
	var b []byte
	for i, e := range p {
		b = w.appendStep(b, i, e)
	}
	return string(b)
}

// appendStep appends the rendering of step i of a path.
func (w *writer) appendStep(b []byte, i int, e any) []byte {
	switch t := e.(type) {
	case string:
		k := w.mask.String(t)
		if isIdent(k) {
			if i > 0 {
				b = append(b, '.')
			}
			return append(b, k...)
		}
		b = append(b, '[')
		b = strconv.AppendQuote(b, k)
		return append(b, ']')
	case int:
		b = append(b, '[')
		b = strconv.AppendInt(b, int64(t), 10)
		return append(b, ']')
	}
	return b
}

// sensitivePrefix is p up to the first step that is marked sensitive on either side (the
// whole of p when none is): the steps after it are keys or indexes of a secret value.
func sensitivePrefix(p []any, bs, as any) []any {
	for i, step := range p {
		switch t := step.(type) {
		case string:
			bs, as = field(bs, t), field(as, t)
		case int:
			bs, as = index(bs, t), index(as, t)
		}
		if isTrue(bs) || isTrue(as) {
			return p[:i+1]
		}
	}
	return p
}

// replacePaths converts tfjson replace_paths (lists of strings and numbers) to path elements.
func replacePaths(raw []any) [][]any {
	out := make([][]any, 0, len(raw))
	for _, r := range raw {
		steps, ok := r.([]any)
		if !ok {
			continue
		}
		p := make([]any, 0, len(steps))
		for _, s := range steps {
			switch t := s.(type) {
			case string:
				p = append(p, t)
			case json.Number:
				n, err := strconv.Atoi(t.String())
				if err != nil {
					p = append(p, t.String())
				} else {
					p = append(p, n)
				}
			case float64:
				p = append(p, int(t))
			}
		}
		out = append(out, p)
	}
	return out
}

func elem(l []any, i int) any {
	if i < len(l) {
		return l[i]
	}
	return nil
}

func allPrimitive(l []any) bool {
	for _, e := range l {
		if !isPrimitive(e) {
			return false
		}
	}
	return true
}

func inSorted(sorted []string, k string) bool {
	_, found := slices.BinarySearch(sorted, k)
	return found
}
