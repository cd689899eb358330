package plan

import (
	"runtime"
	"strings"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/tfgate/tfgate/internal/astjson"
)

// The members policies read only part of (the resource changes, when the policies look at
// a few attributes of each) are kept pruned to what they read (astjson.Prune). An array of
// them is read element by element from its text: only the part the policies read is
// built (astjson.DecodePruned); the shape check decodes the few parts it checks, and the
// harvest skims the element's text (walkText, changeText), as for the members no policy
// reads. The plan's largest member is never built whole.

// partial reports whether the policies read only part of the top-level member key.
func partial(reads *astjson.Paths, key string) bool {
	need, ok := reads.Child(key)
	return ok && !need.Whole()
}

// resourceChangeFields are the parts of a resource change resourceChangeShape checks; it
// checks their kinds only ("*" is every element).
var resourceChangeFields = []string{"address", "previous_address", "module_address", "mode", "type", "name",
	"provider_name", "deposed", "action_reason", "change.actions.*", "change.importing.id",
	"change.importing.unknown", "change.generated_config", "change.replace_paths"}

// elemShapes are, for the array members whose elements are read one by one, the parts of
// an element shapeOK checks (see topShapes), for their kinds: kept as astjson keeps a part
// read for its kind (a string as "", shared), they cost the input little.
var elemShapes = func() map[string]*astjson.Paths {
	rc := resourceChangeFields
	deferred := []string{"reason"}
	for _, f := range rc {
		deferred = append(deferred, "resource_change."+f)
	}
	out := map[string]*astjson.Paths{}
	for key, fields := range map[string][]string{
		"resource_changes": rc, "resource_drift": rc, "deferred_changes": deferred,
		"action_invocations":  {"address", "type", "name", "provider_name"},
		"relevant_attributes": {"resource", "attribute"},
	} {
		p := astjson.NoPaths()
		for _, f := range fields {
			p.Add(dotted(f), false)
		}
		out[key] = p.Freeze() // shared by every opening
	}
	return out
}()

func dotted(path string) []astjson.Seg {
	var out []astjson.Seg
	for _, k := range strings.Split(path, ".") {
		out = append(out, astjson.Seg{Key: k, Any: k == "*"})
	}
	return out
}

// prunedMember is the member key, whose text is raw, pruned to need; it is checked and
// harvested whole on its way. walk runs a harvest beside the decoding (see decode).
func (o *opening) prunedMember(key string, raw []byte, need *astjson.Paths, walk func(func(h *harvest) error)) (ast.Value, error) {
	shape := elemShapes[key]
	if len(raw) == 0 || raw[0] != '[' || shape == nil {
		v, err := astjson.NewSkimmer().Decode(raw)
		if err != nil {
			return nil, err
		}
		o.member(key, v)
		walk(func(h *harvest) error { h.walkValue(v); return nil })
		return astjson.Prune(v, need), nil
	}
	o.member(key, ast.NewArray()) // what the member's presence tells; its elements follow
	var texts [][]byte
	if err := astjson.NewSkimmer().Elements(raw, func(t []byte) error { texts = append(texts, t); return nil }); err != nil {
		return nil, err
	}
	// An element's kept part holds the parts shapeOK checks too (more than the policies
	// read is still the plan as it is): one decoding serves both.
	elemNeed, _ := need.Elem()
	elemNeed = astjson.Union(astjson.Union(astjson.NoPaths(), elemNeed), shape)
	elems := make([]*ast.Term, len(texts))
	// The elements are read in contiguous runs, one per processor: each reader has its own
	// skimmers and harvest; the harvests are merged, and the first fault in document order
	// is the member's.
	runs := min(runtime.GOMAXPROCS(0), max(1, len(texts)/64))
	readers := make([]*elemReader, runs)
	var wg sync.WaitGroup
	for i := range readers {
		r := newElemReader(key, elemNeed)
		readers[i] = r
		lo, hi := i*len(texts)/runs, (i+1)*len(texts)/runs
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.read(texts[lo:hi], elems[lo:hi])
		}()
	}
	wg.Wait()
	h := newHarvest()
	for _, r := range readers {
		if r.err != nil {
			return nil, r.err
		}
		o.badShape = o.badShape || r.badShape
		h.merge(r.h)
	}
	walk(func(into *harvest) error { into.merge(h); return nil })
	return ast.NewArray(elems...), nil
}

// elemReader reads elements of an array member from their text (see prunedMember).
type elemReader struct {
	key        string
	need       *astjson.Paths
	changes    bool
	kept, scan *astjson.Skimmer
	sk         *skim
	h          *harvest
	badShape   bool
	err        error
	fields     [][]byte
}

func newElemReader(key string, need *astjson.Paths) *elemReader {
	return &elemReader{key: key, need: need, changes: key == "resource_changes" || key == "resource_drift",
		kept: astjson.NewSkimmer(), scan: astjson.NewSkimmer(),
		sk: &skim{h: newHarvest(), s: astjson.NewSkimmer()}, h: newHarvest(), fields: make([][]byte, 4)}
}

// read reads texts into out, stopping at the first fault.
func (r *elemReader) read(texts [][]byte, out []*ast.Term) {
	for i, text := range texts {
		if r.err = r.elem(text, &out[i]); r.err != nil {
			return
		}
	}
}

// elem builds what is read of one element, checks its shape and harvests it.
func (r *elemReader) elem(text []byte, out **ast.Term) error {
	v, err := r.kept.DecodePruned(text, r.need)
	if err != nil {
		return err
	}
	*out = ast.NewTerm(v)
	if !shapeOK(r.key, ast.NewArray(*out)) {
		r.badShape = true
	}
	if err := r.h.walkTextWith(r.scan, r.sk, text); err != nil {
		return err
	}
	if r.changes {
		r.h.unmarkedSides(r.scan, text, r.fields)
	}
	return nil
}

// changeSides are the two sides of a change and their markers.
var changeSides = []string{"before", "before_sensitive", "after", "after_sensitive"}

// unmarkedSides is what changeValue harvests from the text of a resource change beyond the
// text's walk (walkText): walkText pairs each side that has markers with them as
// changeValue does, and a side without markers gives changeValue its attribute names.
func (h *harvest) unmarkedSides(s *astjson.Skimmer, rc []byte, fields [][]byte) {
	c := s.Field(rc, "change")
	if len(c) == 0 || c[0] != '{' {
		return
	}
	s.Fields(c, changeSides, fields)
	for i := 0; i < len(fields); i += 2 {
		if side := fields[i]; fields[i+1] == nil && len(side) > 0 && side[0] == '{' {
			s.Keys(side, func(k string) { h.attrs[k] = true })
		}
	}
}

// withMembers is the decoded input with the pruned members added.
func withMembers(input ast.Value, pruned map[string]ast.Value) ast.Value {
	obj, ok := input.(ast.Object)
	if !ok || len(pruned) == 0 {
		return input
	}
	for k, v := range pruned {
		obj.Insert(ast.StringTerm(k), ast.NewTerm(v))
	}
	return obj
}
