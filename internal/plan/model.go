// Package plan turns `terraform show -json` output into tfgate's review model: counts per
// action kind and an attribute-level list of changes in which every sensitive value is
// already redacted. Nothing downstream (renderers, publishers) ever sees a raw plan value,
// so redaction is decided in exactly one place: here.
//
// Redaction rules: a value under a true before_sensitive or after_sensitive marker (at any
// depth) is "(sensitive)" on both sides of its change and is never walked into, so the keys
// of a sensitive map stay hidden too; literal values (and keys of maps) marked sensitive
// anywhere in the plan document (every values tree paired with its markers, see Read), and
// the caller's masks, are replaced by "(masked)" wherever else they appear; a replace path
// into a sensitive value stops at it; changes that
// carry no markers at all (Terraform < 0.14) have all their known values "(hidden)"; the plan's
// variables and configuration are never read.
package plan

import (
	"encoding/json"

	"github.com/tfgate/tfgate/internal/secret"
)

// Summary counts a plan's changes the way a reviewer reads them.
//
// Every listed resource counts once in exactly one of Add, Change, Destroy, Replace, Read or
// Forget (by its action); Import and Move count in addition to that, because an imported or
// moved resource may also be updated. A replacement (delete then create, or create then
// delete) counts only in Replace, never also in Add and Destroy.
type Summary struct {
	Add     int `json:"add"`
	Change  int `json:"change"`
	Destroy int `json:"destroy"`
	Replace int `json:"replace"`
	Import  int `json:"import"`  // resources with change.importing set
	Move    int `json:"move"`    // resources whose previous_address differs from address
	Read    int `json:"read"`    // data sources read during apply
	Forget  int `json:"forget"`  // removed from state without being destroyed (`removed` blocks)
	Outputs int `json:"outputs"` // output changes that are not no-op
	Actions int `json:"actions"` // action invocations (Terraform 1.14 `action` blocks) run on apply
	Drift   int `json:"drift"`   // resource_drift entries: objects changed outside Terraform
}

// MarshalJSON writes the counts and has_changes (HasChanges), the one summary shape of the
// JSON report, bundle manifests and every later document.
func (s Summary) MarshalJSON() ([]byte, error) {
	type counts Summary // without the method
	return json.Marshal(struct {
		counts
		HasChanges bool `json:"has_changes"`
	}{counts(s), s.HasChanges()})
}

// UnmarshalJSON reads what MarshalJSON writes (has_changes is derived, so it is ignored).
func (s *Summary) UnmarshalJSON(b []byte) error {
	type counts Summary
	return json.Unmarshal(b, (*counts)(s))
}

// HasChanges reports whether applying the plan would do anything. It follows terraform's
// -detailed-exitcode: resource actions (including data reads, imports and moves) and output
// changes count; drift alone does not, because applying does not touch drifted objects
// unless the configuration also asks for a change — the drift command reports Drift itself.
func (s Summary) HasChanges() bool {
	return s.Add+s.Change+s.Destroy+s.Replace+s.Import+s.Move+s.Read+s.Forget+s.Outputs+s.Actions > 0
}

// Plus returns the element-wise sum, for totals across projects.
func (s Summary) Plus(o Summary) Summary {
	return Summary{
		Add: s.Add + o.Add, Change: s.Change + o.Change, Destroy: s.Destroy + o.Destroy,
		Replace: s.Replace + o.Replace, Import: s.Import + o.Import, Move: s.Move + o.Move,
		Read: s.Read + o.Read, Forget: s.Forget + o.Forget, Outputs: s.Outputs + o.Outputs,
		Drift: s.Drift + o.Drift, Actions: s.Actions + o.Actions,
	}
}

// Action is what happens to one resource or output.
type Action string

const (
	ActionCreate  Action = "create"
	ActionUpdate  Action = "update"
	ActionDelete  Action = "delete"
	ActionReplace Action = "replace"
	ActionRead    Action = "read"
	ActionForget  Action = "forget"
	ActionNoop    Action = "no-op"
)

// Changes is the review model of one plan.
type Changes struct {
	TerraformVersion string
	Summary          Summary
	// Resources lists resource_changes that do something, in plan order. A no-op that is a
	// move or an import is listed; a plain no-op is not.
	Resources []Resource
	Outputs   []Output   // sorted by name
	Drift     []Resource // resource_drift entries that are not no-op, in plan order
	Checks    []Check    // checks that failed or errored (Terraform 1.5+), masked, in plan order
	// Warnings are things the reviewer must know about the plan itself (incomplete plan,
	// values hidden because the plan carries no sensitivity markers, …).
	Warnings []string

	masker *secret.Masker // the secrets of this plan, for masking text derived from it elsewhere
}

// Masker masks this plan's secrets (values marked sensitive anywhere in it, and the base
// masker's). Text that other parts derive from the raw plan — policy messages quoting
// attribute values, for one — must pass through it before it is shown.
func (c *Changes) Masker() *secret.Masker {
	if c == nil {
		return nil
	}
	return c.masker
}

// Resource is one resource instance that the plan changes.
type Resource struct {
	Address         string
	PreviousAddress string // set when moved
	Deposed         string // deposed object key, when the change concerns a deposed object
	Mode            string // "managed" or "data"
	Type, Name      string
	Action          Action
	// CreateBeforeDestroy: for a replacement, the new object is created before the old one
	// is destroyed (lifecycle create_before_destroy); otherwise the old one goes first.
	CreateBeforeDestroy bool
	Importing           bool
	ImportID            string // the import ID, when importing by ID
	Reason              string // human-readable action_reason, "" when terraform gave none
	// ReplacePaths are the attribute paths that force replacement, e.g. "input".
	ReplacePaths []string
	// Attributes: for update and replace the changed leaf attributes; for create the
	// non-null leaves of the new object; none for delete, read and forget.
	Attributes []Attribute
}

// Attribute is one changed leaf (or a whole list of primitives, which reads better as a unit).
type Attribute struct {
	// Path is e.g. `input.size`, `tags.env`, `tags["Name tag"]`, `ingress[0].cidr_blocks`;
	// "" when the whole object is one value (an object marked sensitive as a whole). Object
	// attributes and map keys look alike in plan JSON, so identifier keys are dotted.
	Path              string
	Before, After     Value
	ForcesReplacement bool
}

// ValueKind says how to read a Value's Text.
type ValueKind string

const (
	KindKnown     ValueKind = "known"     // Text is the value
	KindUnknown   ValueKind = "unknown"   // known only after apply
	KindSensitive ValueKind = "sensitive" // redacted (Text is TextSensitive or TextHidden); Text never holds the value
	KindNull      ValueKind = "null"      // null or absent
)

// Value is a display-ready, already redacted value. Text is always printable as is:
// strings are quoted (control characters escaped), numbers verbatim, lists [..], maps
// {k = v}. A value longer than Options.MaxValueLen is shortened with "…": cut at the cap
// when it stands alone (a new object's attribute), or, as one side of a change, reduced to
// every region where the two sides differ with some context around each (see Excerpt).
type Value struct {
	Text string
	Kind ValueKind
}

// Texts of the non-known kinds. Renderers may rely on them.
const (
	TextUnknown   = "(known after apply)"
	TextSensitive = "(sensitive)"
	// TextHidden replaces values of changes that carry no sensitivity markers at all (plans
	// from Terraform before 0.14): they may or may not be secret, so none is shown. Its Kind
	// is KindSensitive, so JSON consumers keep one "redacted" kind.
	TextHidden = "(hidden)"
	TextNull   = "null"
	TextMasked = secret.Replacement
)

var (
	valueUnknown   = Value{Text: TextUnknown, Kind: KindUnknown}
	valueSensitive = Value{Text: TextSensitive, Kind: KindSensitive}
	valueHidden    = Value{Text: TextHidden, Kind: KindSensitive}
	valueNull      = Value{Text: TextNull, Kind: KindNull}
)

// Output is one changed root module output.
type Output struct {
	Name          string
	Action        Action
	Before, After Value
}

// Options tune Summarise.
type Options struct {
	// Masker masks literal secret values (for example the CI environment's secrets):
	// wherever one appears — as a whole value or inside one, in a map key or an address —
	// it is replaced by "(masked)". Summarise adds the plan's own sensitive values to it.
	Masker *secret.Masker
	// MaxValueLen caps a Value's Text, in characters; 0 means DefaultMaxValueLen. The two
	// sides of a change may run past it (up to four times) when they differ in many places.
	MaxValueLen int
}

// DefaultMaxValueLen keeps a single value readable; renderers shorten further to fit.
const DefaultMaxValueLen = 500
