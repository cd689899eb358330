package plan

import (
	"bytes"
	"errors"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/tfgate/tfgate/internal/astjson"
)

// The document-wide harvest (walkValue) over a member's JSON text, for the large members no
// policy reads: prior_state, planned_values and configuration are about two thirds of a
// plan's bytes, and building them into OPA values only to harvest them and drop them cost
// most of the time and peak memory of opening a plan. The text is skimmed object by object;
// only the parts that can hold a secret (a values tree under markers that say true, the
// objects that say "sensitive": true, module calls) are decoded, and harvested by the
// same functions as the values of the members that are decoded.

// skimmed names the members harvested from their text when no policy reads them, with the
// path of the one part of each that open reads besides the harvest (see opening.member).
var skimmed = map[string][]string{
	"planned_values": {"outputs"},
	"prior_state":    {"values", "outputs"},
	"configuration":  {"root_module", "variables"},
}

// typedSkimmed names the members also harvested from their text when the caller decodes
// the typed plan (open's typed): no part of them is read besides the harvest, only whether
// they are there (a plan's kind). Their projection is an empty container of their kind.
var typedSkimmed = map[string]bool{"resource_changes": true, "resource_drift": true}

// errDuplicateKey stops a skim: where an object repeats a key, only the last of its
// members counts (as for the decoded members), so the member is decoded instead.
var errDuplicateKey = errors.New("duplicate object key")

var trueText = []byte("true")

// walkText is walkValue over the JSON text of a value: the same harvest, into h. A member
// with a repeated key is decoded and walked as a value instead; a malformed one gives the
// skimmer's error.
func (h *harvest) walkText(s *astjson.Skimmer, data []byte) error {
	return h.walkTextWith(s, &skim{h: newHarvest(), s: astjson.NewSkimmer()}, data)
}

// walkTextWith is walkText with the scratch harvest and skimmer of sk, which it leaves
// empty for the next text: a member read element by element walks each with the same.
func (h *harvest) walkTextWith(s *astjson.Skimmer, sk *skim, data []byte) error {
	defer sk.h.reset()
	err := s.Objects(data, sk.object)
	switch {
	case errors.Is(err, errDuplicateKey):
		v, err := s.Decode(data)
		if err != nil {
			return err
		}
		h.walkValue(v)
		return nil
	case err != nil:
		return err
	}
	h.merge(sk.h)
	return nil
}

// skim harvests the objects of a text as the skimmer reaches them. Its own skimmer reads
// the parts of an object (s is busy with the walk).
type skim struct {
	h *harvest
	s *astjson.Skimmer
}

// object is walkValue's work on one object, whose inner objects were skimmed already.
func (sk *skim) object(ms []astjson.Member) error {
	if hasDuplicateMember(ms) {
		return errDuplicateKey
	}
	markers := false
	for _, m := range ms {
		markers = markers || isMarkerKey(m.Key)
	}
	if markers {
		for _, m := range ms {
			if mk := memberText(ms, markerOf(m.Key)); mk != nil {
				if err := sk.pair(m.Value, mk); err != nil {
					return err
				}
			}
		}
	}
	if bytes.Equal(memberText(ms, "sensitive"), trueText) {
		for _, k := range []string{"value", "default"} {
			v, err := sk.decode(memberText(ms, k))
			if err != nil {
				return err
			}
			sk.h.collectValue(v, ast.Boolean(true), true)
		}
		v, err := sk.decode(memberText(ms, "expression"))
		if err != nil {
			return err
		}
		sk.h.constantsValue(v)
	}
	if calls := memberText(ms, "module_calls"); len(calls) > 0 && calls[0] == '{' {
		v, err := sk.decode(calls)
		if err != nil {
			return err
		}
		v.(ast.Object).Foreach(func(_, c *ast.Term) { sk.h.moduleCallValue(c.Value) })
	}
	return nil
}

// pair is pairValue on texts. Most markers mark nothing ({} or false): the values tree then
// only gives its attribute names, read without decoding it.
func (sk *skim) pair(v, marker []byte) error {
	if !bytes.Equal(marker, trueText) {
		sk.s.Keys(v, func(k string) { sk.h.attrs[k] = true })
	}
	if !bytes.Contains(marker, trueText) {
		return nil // no true anywhere in the markers (keys included): nothing is collected
	}
	vv, err := sk.decode(v)
	if err != nil {
		return err
	}
	mv, err := sk.decode(marker)
	if err != nil {
		return err
	}
	sk.h.collectValue(vv, mv, false)
	return nil
}

// decode is the value of a member's text; nil for a missing member, as get gives.
func (sk *skim) decode(text []byte) (ast.Value, error) {
	if text == nil {
		return nil, nil
	}
	return sk.s.Decode(text)
}

// memberText is the value of the member key; nil when there is none.
func memberText(ms []astjson.Member, key string) []byte {
	for _, m := range ms {
		if m.Key == key {
			return m.Value
		}
	}
	return nil
}

func hasDuplicateMember(ms []astjson.Member) bool {
	if len(ms) <= 16 {
		for i := 1; i < len(ms); i++ {
			for j := range i {
				if ms[i].Key == ms[j].Key {
					return true
				}
			}
		}
		return false
	}
	seen := make(map[string]struct{}, len(ms))
	for _, m := range ms {
		if _, ok := seen[m.Key]; ok {
			return true
		}
		seen[m.Key] = struct{}{}
	}
	return false
}

// projection is the part of a skimmed member that open reads besides the harvest (its
// path in skimmed), as a value of the member's shape: the objects on the way hold only
// the next key of the path; what is not an object is decoded whole, so that shapeOK and
// the kind of the document see what they would see in the decoded member.
func projection(s *astjson.Skimmer, text []byte, keys []string) (ast.Value, error) {
	if keys == nil && len(text) > 0 && text[0] == '[' {
		return ast.NewArray(), nil // typedSkimmed: there, and an array
	}
	if len(keys) == 0 || len(text) == 0 || text[0] != '{' {
		return s.Decode(text)
	}
	next := s.Field(text, keys[0])
	if next == nil {
		return ast.NewObject(), nil
	}
	v, err := projection(s, next, keys[1:])
	if err != nil {
		return nil, err
	}
	return ast.NewObject(ast.Item(ast.StringTerm(keys[0]), ast.NewTerm(v))), nil
}
