package plan

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/tfgate/tfgate/internal/english"
	"github.com/tfgate/tfgate/internal/secret"
)

// writer renders values compactly. It carries the masker and the length budget so that a
// huge value costs no more than MaxValueLen characters of work.
type writer struct {
	mask   *secret.Masker
	maxLen int
	// hideAll redacts every known value: set for changes that carry no sensitivity markers
	// at all (plans from before Terraform 0.14), where tfgate cannot tell secrets apart.
	hideAll bool
	// scratch is the differ every resource of the summary is walked with.
	scratch *differ
}

// value renders v (with its sensitivity and unknown markers) as one display Value.
func (w *writer) value(v, sens, unk any) Value {
	val, _ := w.valueCut(v, sens, unk)
	return val
}

// valueCut is value, also reporting whether the text was shortened to the cap.
func (w *writer) valueCut(v, sens, unk any) (Value, bool) {
	switch {
	case isTrue(sens):
		return valueSensitive, false
	case isTrue(unk):
		return valueUnknown, false
	case v == nil:
		return valueNull, false
	case w.hideAll:
		return valueHidden, false
	}
	s, ok := w.primitive(v)
	if !ok {
		s = w.render(v, sens, unk, w.maxLen*4)
	}
	short := shorten(s, w.maxLen)
	return Value{Text: short, Kind: KindKnown}, len(short) != len(s)
}

// fullLimit bounds the text rendered of one side of a change before it is excerpted.
const fullLimit = 4 << 20

// pair renders the two sides of a change. When either is longer than the cap, both are
// shortened to the regions where they differ (see Excerpt), so that no difference is cut
// off however far into a value it lies; the excerpts may run past the cap when there are
// many such regions, up to a few times it.
func (w *writer) pair(b, a, bs, as, au any) (Value, Value) {
	before, cutB := w.valueCut(b, bs, nil)
	after, cutA := w.valueCut(a, as, au)
	if before.Kind != KindKnown || after.Kind != KindKnown || (!cutB && !cutA) {
		return before, after
	}
	before.Text, after.Text = excerpt(w.render(b, bs, nil, fullLimit), w.render(a, as, au, fullLimit), excerptContext, w.maxLen*4)
	return before, after
}

// render writes v's text; past limit bytes it stops adding elements of lists and maps.
func (w *writer) render(v, sens, unk any, limit int) string {
	var b strings.Builder
	w.write(&b, v, sens, unk, limit)
	return b.String()
}

// primitive is the text write gives a string, number or bool with no marker on it,
// written without a builder; ok is false for other values.
func (w *writer) primitive(v any) (string, bool) {
	switch t := v.(type) {
	case string:
		return strconv.Quote(w.mask.String(t)), true
	case json.Number:
		return w.mask.String(t.String()), true
	case float64:
		return w.mask.String(strconv.FormatFloat(t, 'f', -1, 64)), true
	case bool:
		return strconv.FormatBool(t), true
	}
	return "", false
}

func (w *writer) write(b *strings.Builder, v, sens, unk any, limit int) {
	if b.Len() > limit { // far enough past the cap: stop producing text
		return
	}
	switch {
	case isTrue(sens):
		b.WriteString(TextSensitive)
		return
	case isTrue(unk):
		b.WriteString(TextUnknown)
		return
	}
	switch t := v.(type) {
	case nil:
		b.WriteString(TextNull)
	case string:
		b.WriteString(strconv.Quote(w.mask.String(t)))
	case json.Number:
		b.WriteString(w.mask.String(t.String()))
	case float64:
		b.WriteString(w.mask.String(strconv.FormatFloat(t, 'f', -1, 64)))
	case bool:
		b.WriteString(strconv.FormatBool(t))
	case []any:
		b.WriteByte('[')
		for i, e := range t {
			if i > 0 {
				b.WriteString(", ")
			}
			w.write(b, e, index(sens, i), index(unk, i), limit)
		}
		b.WriteByte(']')
	case map[string]any:
		keys := sortedKeys(t, unk)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(w.key(k))
			b.WriteString(" = ")
			w.write(b, t[k], field(sens, k), field(unk, k), limit)
		}
		b.WriteByte('}')
	default:
		b.WriteString("?")
	}
}

// key renders a map key or object attribute name: bare when it is an identifier.
func (w *writer) key(k string) string {
	k = w.mask.String(k)
	if isIdent(k) {
		return k
	}
	return strconv.Quote(k)
}

// shorten cuts s to at most max characters, marking the cut with "…".
func shorten(s string, max int) string {
	return english.Clip(s, max)
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z'):
		case i > 0 && (r == '-' || (r >= '0' && r <= '9')):
		default:
			return false
		}
	}
	return true
}

// isTrue reports whether a marker (from *_sensitive or after_unknown) covers a whole value.
func isTrue(m any) bool {
	b, ok := m.(bool)
	return ok && b
}

// hasTrue reports whether a marker marks anything at all inside a value.
func hasTrue(m any) bool {
	switch t := m.(type) {
	case bool:
		return t
	case []any:
		return slices.ContainsFunc(t, hasTrue)
	case map[string]any:
		for _, v := range t {
			if hasTrue(v) {
				return true
			}
		}
	}
	return false
}

// field and index step into a marker alongside its value. A marker that is true covers
// everything below it, so stepping into it stays true.
func field(m any, k string) any {
	switch t := m.(type) {
	case bool:
		return t
	case map[string]any:
		return t[k]
	}
	return nil
}

func index(m any, i int) any {
	switch t := m.(type) {
	case bool:
		return t
	case []any:
		if i < len(t) {
			return t[i]
		}
	}
	return nil
}

// sortedKeys returns the keys of v and of the unknown marker (an attribute unknown after
// apply may be absent from after), sorted for deterministic output.
func sortedKeys(v map[string]any, unk any) []string {
	keys := make([]string, 0, len(v))
	for k := range v {
		keys = append(keys, k)
	}
	if um, ok := unk.(map[string]any); ok {
		for k, u := range um {
			if _, dup := v[k]; !dup && hasTrue(u) {
				keys = append(keys, k)
			}
		}
	}
	slices.Sort(keys)
	return keys
}

// equal compares two decoded JSON values.
func equal(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case string:
		y, ok := b.(string)
		return ok && x == y
	case json.Number:
		y, ok := b.(json.Number)
		return ok && x == y
	case float64:
		y, ok := b.(float64)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !equal(v, w) {
				return false
			}
		}
		return true
	}
	return false
}

func isPrimitive(v any) bool {
	switch v.(type) {
	case []any, map[string]any:
		return false
	}
	return true
}

// normalise turns json.Numbers into float64 so that values decoded with and without
// UseNumber compare equal.
func normalise(v any) any {
	switch t := v.(type) {
	case json.Number:
		if f, err := t.Float64(); err == nil {
			return f
		}
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = normalise(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = normalise(e)
		}
		return out
	}
	return v
}
