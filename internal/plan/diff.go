package plan

import (
	"slices"
)

// maxPairing bounds the element matching of two lists (before × after comparisons); longer
// lists are compared index by index.
const maxPairing = 4096

// differ walks a before and an after value together with their markers and collects the
// changed leaves as Attributes. Redaction happens on the way: a value under a true
// sensitivity marker (on either side) is never rendered, nor walked into, so even the keys of
// a sensitive map stay hidden.
//
// One differ serves every resource of a summary (reset by differ.start): its path, key
// and attribute room is reused, and the attributes of all resources share blocks.
type differ struct {
	w       *writer
	replace [][]step // replace_paths
	path    []step
	attrs   []Attribute
	// pathText holds the rendering of path's first len(pathEnds) steps, step i ending at
	// pathEnds[i]: a leaf's path is rendered once per step, not once per leaf.
	pathText []byte
	pathEnds []int
	// keys is a stack of the sorted keys of the maps being walked.
	keys []string
	// block is where finished resources' attributes are kept, attrBlock at a time.
	block []Attribute
}

// attrBlock is how many attributes one allocation holds for the resources of a summary.
const attrBlock = 256

// start readies d for a resource's change, written by w.
func (d *differ) start(w *writer, replace [][]step) {
	d.w, d.replace = w, replace
	d.path, d.pathText, d.pathEnds, d.attrs = d.path[:0], d.pathText[:0], d.pathEnds[:0], d.attrs[:0]
}

// finish returns the attributes collected since start, nil when there are none.
func (d *differ) finish() []Attribute {
	n := len(d.attrs)
	if n == 0 {
		return nil
	}
	if len(d.block)+n > cap(d.block) {
		d.block = make([]Attribute, 0, max(attrBlock, n))
	}
	i := len(d.block)
	d.block = append(d.block, d.attrs...)
	clear(d.attrs)
	return d.block[i:len(d.block):len(d.block)]
}

// pushKeys puts the keys of v and of the unknown marker onto d.keys, sorted (see
// sortedKeys), and returns where they start; the caller truncates d.keys back to it.
func (d *differ) pushKeys(v map[string]any, unk any) int {
	start := len(d.keys)
	for k := range v {
		d.keys = append(d.keys, k)
	}
	if um, ok := unk.(map[string]any); ok {
		for k, u := range um {
			if _, dup := v[k]; !dup && hasTrue(u) {
				d.keys = append(d.keys, k)
			}
		}
	}
	slices.Sort(d.keys[start:])
	return start
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
	start := d.pushKeys(a, au)
	n := len(d.keys)
	for k := range b {
		if _, ok := a[k]; !ok && !inSorted(d.keys[start:n], k) {
			d.keys = append(d.keys, k)
		}
	}
	if len(d.keys) > n {
		slices.Sort(d.keys[start:])
	}
	for i, end := start, len(d.keys); i < end; i++ {
		k := d.keys[i]
		d.path = append(d.path, step{key: k})
		d.diff(b[k], a[k], field(bs, k), field(as, k), field(au, k))
		d.pop()
	}
	d.keys = d.keys[:start]
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
		d.path = append(d.path, step{index: idx, isIndex: true})
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
		start := d.pushKeys(t, unk)
		for i, end := start, len(d.keys); i < end; i++ {
			k := d.keys[i]
			d.path = append(d.path, step{key: k})
			d.leaves(t[k], field(sens, k), field(unk, k), after)
			d.pop()
		}
		d.keys = d.keys[:start]
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
			d.path = append(d.path, step{index: i, isIndex: true})
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
