package plan

import (
	"fmt"
	"slices"
	"strings"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/tfgate/tfgate/internal/astjson"
	"github.com/tfgate/tfgate/internal/english"
)

// Summarise builds the review model of a plan: counts, and the redacted attribute-level
// changes of every resource, output and drifted object. It never reads the plan's variables
// or configuration. Masks (and every value terraform marked sensitive anywhere in the plan)
// are masked in all text it produces.
func Summarise(p *tfjson.Plan, opts Options) *Changes {
	return summarise(p, opts, newHarvest())
}

// Read decodes a plan JSON document (see Decode) and summarises it. Its masker also holds
// the values marked sensitive in the parts of the document that Decode skips (prior_state,
// planned_values, configuration, deferred changes, action invocations): policies read
// them. Callers that have the document use Read rather than Decode and Summarise. On an
// errored plan, the summary is returned with Decode's error.
func Read(data []byte, opts Options) (*Changes, error) {
	c, _, err := ReadDocument(data, opts, ReadsNothing())
	return c, err
}

// ReadDocument is Read that also opens the document for policies (Open, keeping the
// members keep accepts): the document-wide harvest and the policies' input come from one
// decoding of the document into OPA values, done beside the typed decoding the review
// needs (on a second core, it costs no wall time). Members no policy reads are skimmed
// for their secrets, not built, resource changes included (the typed decoding checks and
// harvests those). The document's masker is the changes'.
// The caller should drop the document once the policies are evaluated: it can be large.
func ReadDocument(data []byte, opts Options, reads *astjson.Paths) (*Changes, *Document, error) {
	var (
		doc    *Document
		docErr error
	)
	opened := make(chan struct{})
	go func() {
		defer close(opened)
		doc, docErr = open(data, reads, true)
	}()
	p, err := Decode(data)
	<-opened
	if p == nil {
		return nil, nil, err
	}
	if doc == nil {
		// The typed decoder took what the value decoder refused: never expected, but a
		// plan whose secrets were not harvested must not be shown.
		return nil, nil, docErr
	}
	c := summarise(p, opts, doc.h)
	doc.masker = c.masker
	return c, doc, err
}

func summarise(p *tfjson.Plan, opts Options, h *harvest) *Changes {
	c := &Changes{}
	if p == nil {
		return c
	}
	maxLen := opts.MaxValueLen
	if maxLen <= 0 {
		maxLen = DefaultMaxValueLen
	}
	view := newView(p)
	h.plan(view)
	w := &writer{mask: newMasker(opts.Masker, h), maxLen: maxLen}
	c.TerraformVersion = p.TerraformVersion
	c.masker = w.mask

	unmarked := c.resources(w, p)
	c.Summary.Drift = len(c.Drift)
	c.Checks = failedChecks(p.Checks, w.mask)
	var unlisted int
	c.Outputs, unlisted = outputs(w, view)
	c.Summary.Outputs = len(c.Outputs)

	switch {
	case unmarked == 1:
		c.Warnings = append(c.Warnings, "1 resource change carries no sensitivity markers (plans from Terraform before 0.14), so its values are hidden; plan with a newer Terraform to see them")
	case unmarked > 1:
		c.Warnings = append(c.Warnings, fmt.Sprintf(
			"%d resource changes carry no sensitivity markers (plans from Terraform before 0.14), so their values are hidden; plan with a newer Terraform to see them", unmarked))
	}
	switch {
	case unlisted == 1:
		c.Warnings = append(c.Warnings, "1 output is not listed: Terraform before 0.14 reports every output as new, so tfgate cannot tell whether its known value changes; plan with a newer Terraform to see output changes")
	case unlisted > 1:
		c.Warnings = append(c.Warnings, fmt.Sprintf(
			"%d outputs are not listed: Terraform before 0.14 reports every output as new, so tfgate cannot tell whether their known values change; plan with a newer Terraform to see output changes", unlisted))
	}
	// Actions (Terraform 1.14) run arbitrary provider code on apply: a plan that invokes one
	// is not "no changes", even though it changes no resource.
	if n := len(p.ActionInvocations); n > 0 {
		c.Summary.Actions = n
		addrs := make([]string, 0, n)
		for _, a := range p.ActionInvocations {
			addrs = append(addrs, w.mask.String(a.Address))
		}
		c.Warnings = append(c.Warnings, fmt.Sprintf("applying invokes %s: %s (configuration not shown)",
			english.Plural(n, "action", "actions"), strings.Join(addrs, ", ")))
	}
	switch n := len(p.DeferredChanges); {
	case n == 1:
		c.Warnings = append(c.Warnings, "1 resource change is deferred to a later plan and is not shown")
	case n > 1:
		c.Warnings = append(c.Warnings, fmt.Sprintf("%d resource changes are deferred to a later plan and are not shown", n))
	}
	if p.Complete != nil && !*p.Complete {
		c.Warnings = append(c.Warnings, "the plan is incomplete (-target or deferred changes): applying it leaves other changes for a later plan")
	}
	return c
}

// resources converts the resource changes and drift of p, and returns how many carry no
// sensitivity markers.
func (c *Changes) resources(w *writer, p *tfjson.Plan) (unmarked int) {
	c.Resources = make([]Resource, 0, len(p.ResourceChanges)) // most plans list every change
	for _, rc := range p.ResourceChanges {
		r, ok, hidden := resource(w, rc, false)
		if !ok {
			continue
		}
		if hidden {
			unmarked++
		}
		c.Summary.count(r)
		c.Resources = append(c.Resources, r)
	}
	if len(c.Resources) == 0 {
		c.Resources = nil // as when none was appended: JSON null
	}
	for _, rc := range p.ResourceDrift {
		r, ok, hidden := resource(w, rc, true)
		if !ok || r.Action == ActionNoop {
			continue
		}
		if hidden {
			unmarked++
		}
		c.Drift = append(c.Drift, r)
	}
	return unmarked
}

func (s *Summary) count(r Resource) {
	switch r.Action {
	case ActionCreate:
		s.Add++
	case ActionUpdate:
		s.Change++
	case ActionDelete:
		s.Destroy++
	case ActionReplace:
		s.Replace++
	case ActionRead:
		s.Read++
	case ActionForget:
		s.Forget++
	case ActionNoop:
	default: // an action this tfgate does not know: count it as a change, never as nothing
		s.Change++
	}
	if r.Importing {
		s.Import++
	}
	if r.PreviousAddress != "" {
		s.Move++
	}
}

// resource converts one resource change. ok is false for changes not worth listing;
// hidden reports that values were hidden for lack of sensitivity markers.
func resource(w *writer, rc *tfjson.ResourceChange, drift bool) (r Resource, ok, hidden bool) {
	if rc == nil || rc.Change == nil {
		return r, false, false
	}
	ch := rc.Change
	action, reason := classify(ch.Actions)
	moved := rc.PreviousAddress != "" && rc.PreviousAddress != rc.Address
	if action == ActionNoop && !moved && ch.Importing == nil {
		return r, false, false
	}
	r = Resource{
		Address: w.mask.String(rc.Address),
		Deposed: rc.DeposedKey,
		Mode:    string(rc.Mode),
		Type:    w.mask.String(rc.Type),
		Name:    w.mask.String(rc.Name),
		Action:  action,
		Reason:  reasonText(rc.ActionReason),

		CreateBeforeDestroy: ch.Actions.CreateBeforeDestroy(),
	}
	if reason != "" && r.Reason == "" {
		r.Reason = reason
	}
	if moved {
		r.PreviousAddress = w.mask.String(rc.PreviousAddress)
	}
	if ch.Importing != nil {
		r.Importing = true
		r.ImportID = w.mask.String(ch.Importing.ID)
	}
	if w.scratch == nil {
		w.scratch = &differ{}
	}
	rw := w
	if ch.BeforeSensitive == nil && ch.AfterSensitive == nil {
		// No markers at all (Terraform < 0.14): nothing tells secrets apart, so hide values.
		hidden = true
		cp := *w
		cp.hideAll = true
		rw = &cp
	}
	d := w.scratch
	d.start(rw, replacePaths(ch.ReplacePaths))
	for _, p := range d.replace {
		// A path into a sensitive container stops at it: its keys are secret too.
		if s := w.path(sensitivePrefix(p, ch.BeforeSensitive, ch.AfterSensitive)); !slices.Contains(r.ReplacePaths, s) {
			r.ReplacePaths = append(r.ReplacePaths, s)
		}
	}
	switch {
	case action == ActionCreate && !drift:
		d.leaves(ch.After, ch.AfterSensitive, ch.AfterUnknown, true)
	case action == ActionUpdate, action == ActionReplace, !knownAction(action):
		d.diff(ch.Before, ch.After, ch.BeforeSensitive, ch.AfterSensitive, ch.AfterUnknown)
	}
	r.Attributes = d.finish()
	return r, true, hidden && len(r.Attributes) > 0
}

// classify maps terraform's action list to one Action, with a reason when the list itself
// says more than the action does.
func classify(actions tfjson.Actions) (Action, string) {
	switch {
	case len(actions) == 0:
		return ActionNoop, ""
	case actions.Replace(): // delete-then-create or create-then-delete alike
		return ActionReplace, ""
	case len(actions) == 2 && actions[0] == tfjson.ActionCreate && actions[1] == tfjson.ActionForget:
		return ActionCreate, "the old object is removed from state, not destroyed"
	case len(actions) == 1:
		switch a := Action(actions[0]); a {
		case ActionCreate, ActionUpdate, ActionDelete, ActionRead, ActionForget, ActionNoop:
			return a, ""
		}
	}
	parts := make([]string, len(actions))
	for i, a := range actions {
		parts[i] = string(a)
	}
	return Action(strings.Join(parts, "+")), ""
}

func knownAction(a Action) bool {
	switch a {
	case ActionCreate, ActionUpdate, ActionDelete, ActionReplace, ActionRead, ActionForget, ActionNoop:
		return true
	}
	return false
}

var reasons = map[tfjson.ActionReason]string{
	tfjson.ActionReasonReplaceBecauseCannotUpdate:    "cannot be updated in place",
	tfjson.ActionReasonReplaceBecauseTainted:         "tainted",
	tfjson.ActionReasonReplaceByRequest:              "replacement requested with -replace",
	tfjson.ActionReasonReplaceByTriggers:             "replace_triggered_by",
	tfjson.ActionReasonDeleteBecauseNoResourceConfig: "no longer in configuration",
	tfjson.ActionReasonDeleteBecauseWrongRepetition:  "count/for_each changed",
	tfjson.ActionReasonDeleteBecauseCountIndex:       "index beyond count",
	tfjson.ActionReasonDeleteBecauseEachKey:          "key no longer in for_each",
	tfjson.ActionReasonDeleteBecauseNoModule:         "module no longer in configuration",
	tfjson.ActionReasonDeleteBecauseNoMoveTarget:     "moved to an address with no configuration",
	tfjson.ActionReasonReadBecauseConfigUnknown:      "configuration known only after apply",
	tfjson.ActionReasonReadBecauseDependencyPending:  "depends on pending changes",
	tfjson.ActionReasonReadBecauseCheckNested:        "in a check block",
}

func reasonText(r tfjson.ActionReason) string {
	if r == "" {
		return ""
	}
	if s, ok := reasons[r]; ok {
		return s
	}
	return strings.ReplaceAll(string(r), "_", " ")
}
