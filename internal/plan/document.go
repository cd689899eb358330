package plan

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/tfgate/tfgate/internal/astjson"
	"github.com/tfgate/tfgate/internal/secret"
)

// Document is a plan JSON document decoded once, into the value form OPA evaluates:
// policies read it as their input, and the redaction harvests every secret of the document
// from the same decoding (a 30 MB plan is parsed into a tree once, not once for the review
// and once more for the policies). Only the top-level members the policies read are kept;
// the others are harvested and dropped, and the large ones (prior_state, planned_values,
// configuration) are harvested from their text without being built (harvestraw.go).
type Document struct {
	input  ast.Value
	masker *secret.Masker
	h      *harvest
}

// Input is the plan as policies read it (the kept members only).
func (d *Document) Input() ast.Value { return d.input }

// Masker masks the caller's secrets and every value and key marked sensitive anywhere in
// the plan: what policies say about the plan passes through it.
func (d *Document) Masker() *secret.Masker { return d.masker }

// OpenOptions configure Open.
type OpenOptions struct {
	Masker *secret.Masker // secrets to mask besides the plan's own
	// Reads is the part of the plan kept in Input (policy.Engine.InputPaths): its members,
	// down to the attributes the policies read; nil keeps all. Every member is harvested
	// for secrets whole, kept or not.
	Reads *astjson.Paths
	// Release, when set, is given the parts of data the decoding is done with, as it goes
	// (the members read from their text): a caller reading data through a memory mapping
	// may drop them from memory. Data must stay readable: a plan that fails to decode, or
	// whose top level is odd, is read again whole.
	Release func(part []byte)
}

// Open decodes a plan JSON document for its policies: one decoding gives both the input
// they read and the masker for what they say. It refuses what is not a plan with the
// messages of Decode; an errored plan is returned with an error wrapping ErrErrored.
func Open(data []byte, opts OpenOptions) (*Document, error) {
	d, err := openReleasing(data, opts.Reads, false, opts.Release)
	if d == nil {
		return nil, err
	}
	d.masker = newMasker(opts.Masker, d.h)
	return d, err
}

// ReadsNothing is the Reads of a plan no policy judges.
func ReadsNothing() *astjson.Paths { return astjson.NoPaths() }

// open decodes data member by member: each top-level member is checked, harvested and
// kept or dropped as soon as it is decoded.
//
// typed says that the caller decodes data with Decode too and harvests the typed plan
// (ReadDocument): the resource changes and drift no policy reads are then only skimmed,
// as that decoding checks their shape and harvests both sides of each change.
func open(data []byte, reads *astjson.Paths, typed bool) (*Document, error) {
	return openReleasing(data, reads, typed, nil)
}

// openReleasing is open giving release the parts of data it is done with (OpenOptions).
func openReleasing(data []byte, reads *astjson.Paths, typed bool, release func([]byte)) (*Document, error) {
	data = bytes.TrimPrefix(data, utf8BOM)
	if err := sniff(data); err != nil {
		return nil, err
	}
	o := &opening{h: newHarvest(), typed: typed, release: release}
	input, err := o.decode(data, reads)
	if err != nil {
		return nil, canonical(data, fmt.Errorf("decode plan JSON: %w", err))
	}
	if o.odd {
		// The top level itself carries markers (no terraform writes such a plan): harvest
		// the document whole, as the nested levels are.
		whole, err := astjson.Decode(data)
		if err != nil {
			return nil, canonical(data, fmt.Errorf("decode plan JSON: %w", err))
		}
		o = &opening{h: newHarvest()}
		obj, _ := whole.(ast.Object)
		obj.Foreach(func(k, v *ast.Term) { o.member(string(k.Value.(ast.String)), v.Value) })
		o.h.walkValue(whole)
		input = astjson.Prune(obj, reads)
	}
	if o.badShape {
		// Something is not where or what terraform writes it: the typed decoder says what,
		// with its line and column. When it has nothing to say, the value is one it
		// accepts too.
		if _, err := Decode(data); err != nil && !errors.Is(err, ErrErrored) {
			return nil, err
		}
	}
	if err := checkKind(&o.kind); err != nil {
		return nil, err
	}
	o.crossRefs()
	d := &Document{input: input, h: o.h}
	if o.errored {
		return d, fmt.Errorf("decode plan: %w", ErrErrored)
	}
	return d, nil
}

// decode decodes data member by member into o, returning the kept members. Each member's
// walk (a fifth of the time) runs beside the decoding of the next ones: a decoded member is
// never changed again, and each walk fills a harvest of its own, merged once all are done.
// At most one walk runs at a time besides the decoder. The large members no policy reads
// are not decoded: they are harvested from their text (walkText).
func (o *opening) decode(data []byte, reads *astjson.Paths) (ast.Value, error) {
	type walked struct {
		h   *harvest
		err error
	}
	walks := make(chan struct{}, 1)
	var all []*walked
	var wg sync.WaitGroup
	walk := func(f func(h *harvest) error) {
		w := &walked{h: newHarvest()}
		all = append(all, w)
		walks <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-walks }()
			w.err = f(w.h)
		}()
	}
	keep := reads.Has
	text := func(key string) bool {
		_, ok := skimmed[key]
		return (ok || o.typed && typedSkimmed[key]) && !keep(key) || partial(reads, key)
	}
	var projErr error
	pruned := map[string]ast.Value{}
	input, err := astjson.DecodeMembersText(data, text, func(key string, v ast.Value, raw []byte) bool {
		switch {
		case raw == nil:
			o.member(key, v)
			walk(func(h *harvest) error { h.walkValue(v); return nil })
			return keep(key)
		case partial(reads, key):
			need, _ := reads.Child(key)
			pv, err := o.prunedMember(key, raw, need, walk)
			o.drop(raw)
			projErr = cmp.Or(projErr, err)
			pruned[key] = pv
		default:
			projErr = cmp.Or(projErr, o.skimmedMember(key, raw, walk))
		}
		return false
	})
	wg.Wait()
	if err := cmp.Or(err, projErr); err != nil {
		return nil, err
	}
	for _, w := range all {
		if err := w.err; err != nil {
			return nil, err
		}
		o.h.merge(w.h)
	}
	return withMembers(input, pruned), err
}

// skimmedMember reads a member no policy reads from its text: the part open reads of it
// (projection) now, its harvest beside the decoding (walk).
func (o *opening) skimmedMember(key string, raw []byte, walk func(func(h *harvest) error)) error {
	proj, err := projection(astjson.NewSkimmer(), raw, skimmed[key])
	if err != nil {
		return err
	}
	o.member(key, proj)
	walk(func(h *harvest) error {
		defer o.drop(raw)
		return h.walkText(astjson.NewSkimmer(), raw)
	})
	return nil
}

// canonical prefers the typed decoder's message for a document that failed: it gives line
// and column and knows the usual mistakes.
func canonical(data []byte, err error) error {
	if _, derr := Decode(data); derr != nil && !errors.Is(derr, ErrErrored) {
		return derr
	}
	return err
}

// opening is what open learns from the top-level members as they go by: what makes the
// document a plan, and the small parts that secrets elsewhere are found by.
type opening struct {
	h        *harvest
	kind     planKind
	errored  bool
	badShape bool // a member's shape is not terraform's: ask the typed decoder
	odd      bool // the top level holds markers: harvest it whole
	typed    bool // the caller harvests Decode's plan too (see open)
	release  func([]byte)

	sensitiveVars    []string   // root variables declared sensitive (configuration)
	variables        ast.Object // the variables block, for the values of those
	sensitiveOutputs []string   // outputs marked sensitive in planned_values or prior_state
	outputChanges    ast.Object
}

// drop gives release a part of the text the opening is done with.
func (o *opening) drop(part []byte) {
	if o.release != nil {
		o.release(part)
	}
}

// member reads what open needs from one top-level member (its harvest is the caller's).
func (o *opening) member(key string, v ast.Value) {
	if isMarkerKey(key) || key == "sensitive" || key == "module_calls" {
		o.odd = true
	}
	if !shapeOK(key, v) {
		o.badShape = true
	}
	_, null := v.(ast.Null)
	switch key {
	case "format_version":
		if s, ok := v.(ast.String); ok {
			o.kind.formatVersion = string(s)
		}
	case "errored":
		o.errored = v.Compare(ast.Boolean(true)) == 0
	case "resource_changes", "output_changes", "planned_values", "resource_drift", "action_invocations", "configuration":
		o.kind.isPlan = o.kind.isPlan || !null
	case "@message":
		o.kind.logMessage = !null
	case "values":
		o.kind.stateValues = !null
	}
	switch key {
	case "configuration":
		vars, _ := path(v, "root_module", "variables").(ast.Object)
		o.sensitiveVars = append(o.sensitiveVars, sensitiveNames(vars)...)
	case "variables":
		o.variables, _ = v.(ast.Object)
	case "planned_values":
		outs, _ := path(v, "outputs").(ast.Object)
		o.sensitiveOutputs = append(o.sensitiveOutputs, sensitiveNames(outs)...)
	case "prior_state":
		outs, _ := path(v, "values", "outputs").(ast.Object)
		o.sensitiveOutputs = append(o.sensitiveOutputs, sensitiveNames(outs)...)
	case "output_changes":
		o.outputChanges, _ = v.(ast.Object)
	case "resource_changes", "resource_drift":
		if a, ok := v.(*ast.Array); ok {
			for i := range a.Len() {
				o.h.changeValue(path(a.Elem(i).Value, "change"))
			}
		}
	}
}

// crossRefs harvests what only two members together tell (Summarise's planView does the
// same on the typed plan): the values of sensitive root variables, and both sides of
// outputs marked sensitive elsewhere (plans before Terraform 0.15 carry no markers on
// output changes). Like the typed plan's harvest, every output change is paired with its
// markers even when it has none (its attribute names are then no secret).
func (o *opening) crossRefs() {
	for _, name := range o.sensitiveVars {
		if o.variables != nil {
			if v := o.variables.Get(ast.StringTerm(name)); v != nil {
				o.h.collectValue(path(v.Value, "value"), ast.Boolean(true), true)
			}
		}
	}
	if o.outputChanges != nil {
		o.outputChanges.Foreach(func(_, c *ast.Term) { o.h.changeValue(c.Value) })
	}
	for _, name := range o.sensitiveOutputs {
		if o.outputChanges == nil {
			break
		}
		if c := o.outputChanges.Get(ast.StringTerm(name)); c != nil {
			o.h.collectValue(path(c.Value, "before"), ast.Boolean(true), false)
			o.h.collectValue(path(c.Value, "after"), ast.Boolean(true), false)
		}
	}
}

// sensitiveNames lists the keys of obj whose value says "sensitive": true.
func sensitiveNames(obj ast.Object) []string {
	var out []string
	if obj == nil {
		return nil
	}
	obj.Foreach(func(k, v *ast.Term) {
		if isTrueValue(path(v.Value, "sensitive")) {
			out = append(out, string(k.Value.(ast.String)))
		}
	})
	return out
}

// path follows object keys from v; nil when one is missing or not an object.
func path(v ast.Value, keys ...string) ast.Value {
	for _, k := range keys {
		obj, ok := v.(ast.Object)
		if !ok {
			return nil
		}
		t := obj.Get(ast.StringTerm(k))
		if t == nil {
			return nil
		}
		v = t.Value
	}
	return v
}
