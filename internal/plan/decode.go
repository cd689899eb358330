package plan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	tfjson "github.com/hashicorp/terraform-json"
)

// ErrErrored marks a plan that terraform produced while reporting errors: it is incomplete
// and must not be applied. Decode returns the decoded plan together with an error wrapping
// ErrErrored, so a caller that only wants to show what was planned can still do so.
var ErrErrored = errors.New("terraform reported errors while planning: the plan is incomplete and cannot be applied")

// leanPlan holds only what tfgate reads. Skipping planned_values, prior_state and
// configuration (the bulk of a real plan) instead of building maps for them is what makes
// Decode fast; the sections are still scanned for validity.
type leanPlan struct {
	FormatVersion      string                           `json:"format_version"`
	TerraformVersion   string                           `json:"terraform_version"`
	Errored            bool                             `json:"errored"`
	Complete           *bool                            `json:"complete"`
	ResourceChanges    []*tfjson.ResourceChange         `json:"resource_changes"`
	ResourceDrift      []*tfjson.ResourceChange         `json:"resource_drift"`
	DeferredChanges    []*tfjson.DeferredResourceChange `json:"deferred_changes"`
	OutputChanges      map[string]*tfjson.Change        `json:"output_changes"`
	RelevantAttributes []tfjson.ResourceAttribute       `json:"relevant_attributes"`
	ActionInvocations  []*tfjson.ActionInvocation       `json:"action_invocations"`
	Checks             []tfjson.CheckResultStatic       `json:"checks"`
	// Output sensitivity flags only: plans older than Terraform 0.15 carry no
	// before/after_sensitive on output changes, so these flags are all there is.
	PlannedValues *leanValues `json:"planned_values"`
	PriorState    *struct {
		Values *leanPriorValues `json:"values"`
	} `json:"prior_state"`
	// Root variables declared sensitive, and the variables' values: read only so that
	// those values can be masked wherever they appear (a policy message quoting one);
	// the variables block itself is never rendered.
	Configuration leanConfig                      `json:"configuration"`
	Variables     map[string]*tfjson.PlanVariable `json:"variables"`
	// Presence only, to tell a plan from other JSON.
	StateValues presence `json:"values"`   // state JSON
	LogMessage  presence `json:"@message"` // `terraform plan -json` log lines
}

type leanValues struct {
	Outputs map[string]struct {
		Sensitive bool `json:"sensitive"`
	} `json:"outputs"`
}

// leanPriorValues keeps prior output values too: Terraform 0.12 and 0.13 report every
// output as "create" in output_changes, and comparing with the prior value is the only way
// to tell an unchanged output from a new one.
type leanPriorValues struct {
	Outputs map[string]*tfjson.StateOutput `json:"outputs"`
}

// leanConfig keeps which root variables are sensitive, and whether configuration was there.
type leanConfig struct {
	present   bool
	Variables map[string]bool
}

func (c *leanConfig) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	var raw struct {
		RootModule struct {
			Variables map[string]struct {
				Sensitive bool `json:"sensitive"`
			} `json:"variables"`
		} `json:"root_module"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	c.present = true
	for name, v := range raw.RootModule.Variables {
		if v.Sensitive {
			if c.Variables == nil {
				c.Variables = map[string]bool{}
			}
			c.Variables[name] = true
		}
	}
	return nil
}

// presence records whether a key was present (and not null) without decoding its value.
type presence bool

func (p *presence) UnmarshalJSON(b []byte) error {
	*p = string(b) != "null"
	return nil
}

// Decode parses `terraform show -json PLANFILE` output.
//
// The returned plan holds format_version, terraform_version, complete, resource_changes,
// resource_drift, deferred_changes, output_changes, relevant_attributes and checks. Numbers inside
// values are json.Number (exactly as terraform wrote them). PlannedValues holds only its
// outputs' Sensitive flags, PriorState only its outputs; resources of either and the
// plan's variables and configuration are never read. Other JSON (state, `plan -json` logs, a binary plan file, garbage) gives an error
// saying what it is and what to run instead. When the plan is marked errored, the plan is
// returned with an error wrapping ErrErrored.
func Decode(data []byte) (*tfjson.Plan, error) { return decode(data, true) }

// decode is Decode, with its fast path or (for the tests that hold the two equal) without.
func decode(data []byte, fast bool) (*tfjson.Plan, error) {
	// A byte order mark is not JSON, but editors on Windows add one; it says nothing.
	data = bytes.TrimPrefix(data, utf8BOM)
	if err := sniff(data); err != nil {
		return nil, err
	}
	var lp leanPlan
	if !fast || !decodeFast(data, &lp) { // what terraform writes, in one pass; anything else:
		if err := decodeStd(data, &lp); err != nil {
			return nil, err
		}
	}
	kind := lp.kind()
	if err := checkKind(&kind); err != nil {
		return nil, err
	}
	p := &tfjson.Plan{
		FormatVersion:      lp.FormatVersion,
		TerraformVersion:   lp.TerraformVersion,
		Complete:           lp.Complete,
		ResourceChanges:    lp.ResourceChanges,
		ResourceDrift:      lp.ResourceDrift,
		DeferredChanges:    lp.DeferredChanges,
		OutputChanges:      lp.OutputChanges,
		RelevantAttributes: lp.RelevantAttributes,
		ActionInvocations:  lp.ActionInvocations,
		Checks:             lp.Checks,
		PlannedValues:      stateValues(lp.PlannedValues),
		Variables:          sensitiveVariables(&lp),
	}
	p.UseJSONNumber(true)
	if lp.PriorState != nil && lp.PriorState.Values != nil {
		p.PriorState = &tfjson.State{Values: &tfjson.StateValues{Outputs: lp.PriorState.Values.Outputs}}
	}
	if lp.Errored {
		return p, fmt.Errorf("decode plan: %w", ErrErrored)
	}
	return p, nil
}

// decodeStd decodes data into lp with encoding/json: Decode's judge of every input that
// decodeFast leaves to it, and the definition of what decodeFast must build.
func decodeStd(data []byte, lp *leanPlan) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(lp); err != nil {
		return decodeError(data, err)
	}
	if rest := bytes.TrimSpace(data[dec.InputOffset():]); len(rest) > 0 {
		if lp.LogMessage {
			return errors.New("not a plan: this is `terraform plan -json` log output; save the plan with `terraform plan -out=FILE` and run `terraform show -json FILE`")
		}
		after := data[dec.InputOffset():]
		line, col := lineCol(data, dec.InputOffset()+int64(len(after)-len(bytes.TrimLeft(after, " \t\r\n"))))
		return fmt.Errorf("decode plan JSON: line %d, column %d: unexpected data after the plan object", line, col)
	}
	return nil
}

// utf8BOM is the UTF-8 byte order mark, which Decode (and the policy decoder) skip.
var utf8BOM = []byte("\ufeff")

// sniff rejects input that is obviously not a plan, with a hint for the usual mistakes.
func sniff(data []byte) error {
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	switch {
	case len(trimmed) == 0:
		return errors.New("not a plan: the input is empty; expected the output of `terraform show -json PLANFILE`")
	case bytes.HasPrefix(data, []byte("PK\x03\x04")):
		return errors.New("not a plan: this is a binary plan file; convert it with `terraform show -json PLANFILE`")
	case trimmed[0] != '{':
		if kind := jsonKind(trimmed); kind != "" {
			return fmt.Errorf("not a plan: a JSON %s; expected a JSON object from `terraform show -json PLANFILE`", kind)
		}
		return errors.New("not a plan: the input is not JSON; expected the output of `terraform show -json PLANFILE`")
	}
	return nil
}

// jsonKind names the JSON value data starts with other than an object ("array", "null"),
// or "" when data is not JSON. Arrays, strings and numbers are named from their first
// byte: whatever follows, they are no plan.
func jsonKind(data []byte) string {
	switch c := data[0]; {
	case c == '[':
		return "array"
	case c == '"':
		return "string"
	case c == '-' || c >= '0' && c <= '9':
		return "number"
	case !json.Valid(data):
		return ""
	case c == 't' || c == 'f':
		return "boolean"
	case c == 'n':
		return "null"
	}
	return ""
}

// planKind is what tells a plan from other JSON, read by Decode and by Open alike.
type planKind struct {
	formatVersion string
	// isPlan: one of the sections only a plan has is there (and not null).
	isPlan                  bool
	logMessage, stateValues bool // `plan -json` log lines; state JSON
}

func (lp *leanPlan) kind() planKind {
	return planKind{
		formatVersion: lp.FormatVersion,
		isPlan: lp.ResourceChanges != nil || lp.OutputChanges != nil || lp.PlannedValues != nil ||
			lp.Configuration.present || lp.ResourceDrift != nil || lp.ActionInvocations != nil,
		logMessage: bool(lp.LogMessage), stateValues: bool(lp.StateValues),
	}
}

func checkKind(k *planKind) error {
	switch {
	case k.logMessage:
		return errors.New("not a plan: this is a `terraform plan -json` log message; save the plan with -out=FILE and run `terraform show -json FILE`")
	case !k.isPlan && k.stateValues:
		return errors.New("not a plan: this is Terraform state JSON; run `terraform show -json PLANFILE` on a saved plan")
	case k.formatVersion == "":
		return errors.New("not a plan: format_version is missing; expected the output of `terraform show -json PLANFILE`")
	case !k.isPlan:
		return errors.New("not a plan: no resource_changes, planned_values or configuration; expected the output of `terraform show -json PLANFILE`")
	}
	return checkFormatVersion(k.formatVersion)
}

// checkFormatVersion accepts the plan format majors tfgate understands (0.1+ and 1.x, as
// terraform-json does). A new major may change meaning, so it is refused, not guessed at.
func checkFormatVersion(v string) error {
	majorStr, minorStr, _ := strings.Cut(v, ".")
	major, err1 := strconv.Atoi(majorStr)
	minor, err2 := strconv.Atoi(strings.SplitN(minorStr, ".", 2)[0])
	if err1 != nil || err2 != nil {
		return fmt.Errorf("not a plan: invalid format_version %q", v)
	}
	if major > 1 || (major == 0 && minor < 1) || major < 0 {
		return fmt.Errorf("unsupported plan format_version %q: tfgate reads 0.1 to 1.x; use a tfgate release that supports this terraform version", v)
	}
	return nil
}

func stateValues(v *leanValues) *tfjson.StateValues {
	if v == nil {
		return nil
	}
	sv := &tfjson.StateValues{Outputs: make(map[string]*tfjson.StateOutput, len(v.Outputs))}
	for name, o := range v.Outputs {
		sv.Outputs[name] = &tfjson.StateOutput{Sensitive: o.Sensitive}
	}
	return sv
}

// decodeError turns encoding/json errors into "line L, column C" messages a user can find.
func decodeError(data []byte, err error) error {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		line, col := lineCol(data, syn.Offset-1) // Offset counts the offending byte
		return fmt.Errorf("decode plan JSON: line %d, column %d: %s", line, col, syn.Error())
	}
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		line, col := lineCol(data, typ.Offset)
		return fmt.Errorf("decode plan JSON: line %d, column %d: %s is a JSON %s, expected %s; is this `terraform show -json` output?",
			line, col, typ.Field, typ.Value, typ.Type)
	}
	if err.Error() == "unexpected EOF" {
		return errors.New("decode plan JSON: unexpected end of input; the file is truncated")
	}
	return fmt.Errorf("decode plan JSON: %w", err)
}

// lineCol converts a byte offset to a 1-based line and column.
func lineCol(data []byte, off int64) (line, col int) {
	off = max(0, min(off, int64(len(data))))
	before := data[:off]
	line = bytes.Count(before, []byte{'\n'}) + 1
	col = int(off) - bytes.LastIndexByte(before, '\n')
	return line, col
}

// sensitiveVariables keeps the values of the root variables declared sensitive, and only
// those: they are all the rest of tfgate may learn from the variables block.
func sensitiveVariables(lp *leanPlan) map[string]*tfjson.PlanVariable {
	out := map[string]*tfjson.PlanVariable{}
	for name := range lp.Configuration.Variables {
		if v := lp.Variables[name]; v != nil {
			out[name] = v
		}
	}
	return out
}
