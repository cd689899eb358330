package plan

import (
	"bytes"
	"encoding/json"
	"errors"
	"sync/atomic"

	tfjson "github.com/hashicorp/terraform-json"

	"github.com/tfgate/tfgate/internal/astjson"
)

// The fast path of Decode. encoding/json reads a plan twice (once to check it, once to
// decode it through reflection) and is most of the time tfgate spends on a large plan
// after terraform exits. decodeFast reads what terraform writes, in one pass with astjson's
// scanner, into the very leanPlan encoding/json would build; the moment the text is
// anything else it gives up, and Decode runs encoding/json, which then judges the odd
// input (and words its errors) exactly as before. It gives up on:
//   - malformed JSON, trailing data, nesting deeper than fastMaxDepth;
//   - a struct member whose key is a field's name only case-insensitively (encoding/json
//     would match it), a non-ASCII unknown key (Unicode case folding), a repeated key of a
//     struct or typed map (encoding/json merges those);
//   - a value of a kind its field does not take;
//   - a string that is not valid UTF-8 or escapes a UTF-16 surrogate.
//
// Sections terraform writes small and rarely (checks, variables, deferred changes, action
// invocations, relevant attributes, output values) are handed member by member to
// encoding/json: a member decoded on its own into its zero field is what encoding/json
// builds for it within the whole plan.

// errFallback is any reason to give up: which one does not matter, encoding/json decides.
var errFallback = errors.New("not decoded fast")

// fastMaxDepth is encoding/json's own bound on nesting (10000 levels), which the Lexer
// counts as encoding/json does (astjson's TestLexerSkipIsJSONValid): a document too deep
// for encoding/json is refused here too, and a value as deep as a pull request can nest
// one (jsondecode) does not make the fast path give up on the whole plan.
const fastMaxDepth = 10000

// fastDecodes counts the plans decodeFast decoded, for the test that it is taken.
var fastDecodes atomic.Int64

type fastDecoder struct {
	l      *astjson.Lexer
	intern internCache
	// Resource changes and their changes are carved from blocks: far fewer allocations,
	// and they live as long as the plan anyway.
	rcs     []tfjson.ResourceChange
	changes []tfjson.Change
}

// decodeFast decodes data (a JSON object, the sniffed input of Decode) into lp and
// reports true, or leaves lp alone and reports false when encoding/json must decide.
func decodeFast(data []byte, lp *leanPlan) bool {
	f := &fastDecoder{
		l: astjson.NewLexer(data, fastMaxDepth),
	}
	var out leanPlan
	if f.l.Next() != '{' || f.plan(&out) != nil || f.l.End() != nil {
		return false
	}
	*lp = out
	fastDecodes.Add(1)
	return true
}

// fastPlanFields are leanPlan's JSON names; TestFastFieldsCoverStructs holds each list of
// fields here to its struct.
var fastPlanFields = []string{
	"format_version", "terraform_version", "errored", "complete", "resource_changes",
	"resource_drift", "deferred_changes", "output_changes", "relevant_attributes",
	"action_invocations", "checks", "planned_values", "prior_state", "configuration",
	"variables", "values", "@message",
}

func (f *fastDecoder) plan(lp *leanPlan) error {
	return f.members(fastPlanFields, func(name string) error {
		switch name {
		case "format_version":
			return f.str(&lp.FormatVersion)
		case "terraform_version":
			return f.str(&lp.TerraformVersion)
		case "errored":
			return f.boolean(&lp.Errored)
		case "complete":
			return f.optBool(&lp.Complete)
		case "resource_changes":
			return f.resourceChanges(&lp.ResourceChanges)
		case "resource_drift":
			return f.resourceChanges(&lp.ResourceDrift)
		case "output_changes":
			return f.outputChanges(&lp.OutputChanges)
		case "planned_values":
			return f.plannedValues(lp)
		case "prior_state":
			return f.priorState(lp)
		case "configuration":
			return f.configuration(&lp.Configuration)
		case "values":
			return f.presence(&lp.StateValues)
		case "@message":
			return f.presence(&lp.LogMessage)
		case "deferred_changes":
			return f.std(&lp.DeferredChanges)
		case "relevant_attributes":
			return f.std(&lp.RelevantAttributes)
		case "action_invocations":
			return f.std(&lp.ActionInvocations)
		case "checks":
			return f.std(&lp.Checks)
		}
		return f.std(&lp.Variables) // "variables"
	})
}

// members reads the object at Next as a struct with the given fields: fn reads the value
// of each field present; members of other keys are checked and skipped, as encoding/json
// does, unless encoding/json would take the key for a field.
func (f *fastDecoder) members(fields []string, fn func(name string) error) error {
	l := f.l
	if l.Next() != '{' {
		return errFallback
	}
	if empty, err := l.ObjectStart(); err != nil || empty {
		return err
	}
	var seen uint64
	next := 0 // terraform writes a struct's fields in one order: the next one is likely
	for {
		key, exact, err := l.Key()
		if err != nil {
			return err
		}
		i := next
		if i >= len(fields) || fields[i] != string(key) {
			i = fieldIndex(fields, key)
		}
		next = i + 1
		switch {
		case !exact || i < 0 && foldsToField(fields, key) || i >= 0 && seen&(1<<i) != 0:
			return errFallback
		case i >= 0:
			seen |= 1 << i
			err = fn(fields[i])
		default:
			err = l.Skip()
		}
		if err != nil {
			return err
		}
		if last, err := l.MemberEnd(); err != nil || last {
			return err
		}
	}
}

func fieldIndex(fields []string, key []byte) int {
	for i, name := range fields {
		if name == string(key) {
			return i
		}
	}
	return -1
}

// foldsToField reports whether encoding/json could match key to one of fields other than
// exactly: ASCII case-insensitively, or (any non-ASCII key, to be safe) by Unicode folding.
func foldsToField(fields []string, key []byte) bool {
	for _, c := range key {
		if c >= 0x80 {
			return true
		}
	}
	for _, name := range fields {
		if len(name) == len(key) && asciiEqualFold(name, key) {
			return true
		}
	}
	return false
}

func asciiEqualFold(name string, key []byte) bool {
	for i := range len(name) {
		a, b := name[i], key[i]
		if 'A' <= a && a <= 'Z' {
			a += 'a' - 'A'
		}
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		if a != b {
			return false
		}
	}
	return true
}

// null reads a null at Next and reports true, or reports false when Next is no null.
func (f *fastDecoder) null() (bool, error) {
	if f.l.Next() != 'n' {
		return false, nil
	}
	_, err := f.l.Literal()
	return true, err
}

// str reads a string field; null leaves it as it is, as encoding/json does.
func (f *fastDecoder) str(s *string) error {
	switch f.l.Next() {
	case '"':
		v, err := f.string()
		*s = v
		return err
	case 'n':
		_, err := f.l.Literal()
		return err
	}
	return errFallback
}

func (f *fastDecoder) string() (string, error) {
	b, exact, err := f.l.String()
	if err != nil || !exact {
		return "", errFallback
	}
	return f.intern.str(b), nil
}

// boolean reads a bool field; null leaves it as it is.
func (f *fastDecoder) boolean(b *bool) error {
	switch f.l.Next() {
	case 't', 'f', 'n':
		c, err := f.l.Literal()
		if c != 'n' {
			*b = c == 't'
		}
		return err
	}
	return errFallback
}

func (f *fastDecoder) optBool(p **bool) error {
	if null, err := f.null(); null || err != nil {
		return err
	}
	var b bool
	*p = &b
	return f.boolean(&b)
}

// presence reads a presence field: any value but null sets it.
func (f *fastDecoder) presence(p *presence) error {
	if null, err := f.null(); null || err != nil {
		return err
	}
	*p = true
	return f.l.Skip()
}

// std hands the next value to encoding/json, to decode into v (a pointer to a zero field).
func (f *fastDecoder) std(v any) error {
	text, err := f.l.Value()
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	if dec.Decode(v) != nil {
		return errFallback
	}
	return nil
}
