package plangen

import (
	"encoding/json"
	"slices"
	"strconv"
)

// value is a random value with its sensitivity marker and an after_unknown marker (for
// when it is an after value): primitives, lists and maps down to three levels.
func (h *hostile) value(depth int, under bool) (v, sens, unk any) {
	sens, unk = false, false
	if !under && h.rng.IntN(12) == 0 {
		sens, under = true, true
	}
	if h.rng.IntN(15) == 0 {
		unk = true
	}
	kind := h.rng.IntN(9)
	switch {
	case depth == 0:
		kind = 7 // a resource's values are an object
	case depth >= 3:
		kind %= 5
	}
	switch kind {
	case 0, 1:
		if under { // secrets of their own: a hostile string marked once is masked everywhere
			return h.pick(hostileSecrets) + strconv.Itoa(h.rng.IntN(50)), sens, unk
		}
		return h.pick(hostileStrings), sens, unk
	case 2:
		return json.Number(strconv.Itoa(h.rng.IntN(2000) - 1000)), sens, unk
	case 3:
		return h.rng.IntN(2) == 0, sens, unk
	case 4:
		return nil, sens, unk
	case 5, 6:
		l, ls, lu := []any{}, []any{}, []any{}
		for i := h.rng.IntN(5); i > 0; i-- {
			e, es, eu := h.value(depth+1, under)
			l, ls, lu = append(l, e), append(ls, es), append(lu, eu)
		}
		return l, marker(sens == true, ls), marker(unk == true, lu)
	}
	m, ms, mu := map[string]any{}, map[string]any{}, map[string]any{}
	for i := h.rng.IntN(6); i > 0; i-- {
		k := h.pick(hostileKeys)
		if under {
			k = h.pick(hostileSecrets) + "-key"
		}
		m[k], ms[k], mu[k] = h.value(depth+1, under)
	}
	return m, marker(sens == true, ms), marker(unk == true, mu)
}

// marker is true when the whole value is marked, else the container of its parts' markers.
func marker(whole bool, parts any) any {
	if whole {
		return true
	}
	return parts
}

// mutate is an after value for v: most parts kept, some changed, added, removed or
// reordered, with fresh markers.
func (h *hostile) mutate(v, vs any) (a, as, au any) {
	if vs == true { // a secret stays one, of secrets only
		if h.rng.IntN(3) == 0 {
			a, _, au = h.value(1, true)
			return a, true, au
		}
		return v, true, false
	}
	if h.rng.IntN(6) == 0 {
		return h.value(1, false)
	}
	switch t := v.(type) {
	case map[string]any:
		m, ms, mu := map[string]any{}, map[string]any{}, map[string]any{}
		for _, k := range sortedKeys(t) {
			if h.rng.IntN(8) == 0 {
				continue // removed
			}
			m[k], ms[k], mu[k] = h.mutate(t[k], step(vs, k))
		}
		if h.rng.IntN(4) == 0 {
			k := h.pick(hostileKeys)
			m[k], ms[k], mu[k] = h.value(2, false)
		}
		return m, ms, mu
	case []any:
		l, ls, lu := []any{}, []any{}, []any{}
		for i, e := range t {
			ea, eas, eau := h.mutate(e, step(vs, i))
			l, ls, lu = append(l, ea), append(ls, eas), append(lu, eau)
		}
		if len(l) > 1 && h.rng.IntN(3) == 0 {
			l[0], l[1], ls[0], ls[1], lu[0], lu[1] = l[1], l[0], ls[1], ls[0], lu[1], lu[0]
		}
		return l, ls, lu
	}
	if h.rng.IntN(3) == 0 {
		return h.value(3, false)
	}
	return v, vs, h.rng.IntN(20) == 0
}

// step is the marker of a part of a value under marker m.
func step(m any, k any) any {
	switch t := m.(type) {
	case map[string]any:
		if s, ok := k.(string); ok {
			return t[s]
		}
	case []any:
		if i, ok := k.(int); ok && i < len(t) {
			return t[i]
		}
	case bool:
		return t
	}
	return false
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
