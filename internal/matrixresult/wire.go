package matrixresult

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/tfgate/tfgate/internal/cost"
	"github.com/tfgate/tfgate/internal/plan"
	"github.com/tfgate/tfgate/internal/policy"
	"github.com/tfgate/tfgate/internal/report"
)

// The "run" of a result: report.Run field for field. Unlike the JSON report, which is made
// for reading, it keeps what renderers branch on: nil against empty (lists are never
// omitted, so null and [] survive), a project without a plan (changes null), the parts of
// a joined policy error (markdown lists each), durations to the nanosecond. The one thing
// it drops is plan.Changes' masker, which only the planning job uses (to mask policy
// messages before they reach the run).

type wireRun struct {
	Kind        report.Kind   `json:"kind"`
	Base        string        `json:"base"`
	MergeBase   string        `json:"merge_base"`
	Commit      string        `json:"commit"`
	PR          int           `json:"pr"`
	Reviewed    string        `json:"reviewed"`
	DryRun      bool          `json:"dry_run"`
	Verdict     *wireVerdict  `json:"verdict"`
	Policies    string        `json:"policies"`
	Cost        string        `json:"cost,omitempty"`
	PolicyNotes []string      `json:"policy_notes"`
	Notes       []string      `json:"notes"`
	Projects    []wireProject `json:"projects"`
}

type wireVerdict struct {
	State       string `json:"state"`
	Description string `json:"description"`
}

type wireProject struct {
	Name        string        `json:"name"`
	Dir         string        `json:"dir"`
	Workspace   string        `json:"workspace"`
	Status      report.Status `json:"status"`
	Error       string        `json:"error"`
	DurationNS  int64         `json:"duration_ns"`
	Changes     *wireChanges  `json:"changes"`
	Bundle      string        `json:"bundle"` // slash path relative to the result's directory when under it
	ReusedFrom  string        `json:"reused_from,omitempty"`
	Policy      *wirePolicy   `json:"policy"`
	Cost        *cost.Cost    `json:"cost,omitempty"`
	Gate        *wireGate     `json:"gate"`
	Apply       *wireApply    `json:"apply"`
	Suggestions []string      `json:"suggestions"`
	Issue       string        `json:"issue"`
}

type wireChanges struct {
	TerraformVersion string         `json:"terraform_version"`
	Summary          plan.Summary   `json:"summary"`
	Resources        []wireResource `json:"resources"`
	Outputs          []wireOutput   `json:"outputs"`
	Drift            []wireResource `json:"drift"`
	Warnings         []string       `json:"warnings"`
}

type wireResource struct {
	Address             string          `json:"address"`
	PreviousAddress     string          `json:"previous_address"`
	Deposed             string          `json:"deposed"`
	Mode                string          `json:"mode"`
	Type                string          `json:"type"`
	Name                string          `json:"name"`
	Action              plan.Action     `json:"action"`
	CreateBeforeDestroy bool            `json:"create_before_destroy"`
	Importing           bool            `json:"importing"`
	ImportID            string          `json:"import_id"`
	Reason              string          `json:"reason"`
	ReplacePaths        []string        `json:"replace_paths"`
	Attributes          []wireAttribute `json:"attributes"`
}

type wireAttribute struct {
	Path              string    `json:"path"`
	Before            wireValue `json:"before"`
	After             wireValue `json:"after"`
	ForcesReplacement bool      `json:"forces_replacement"`
}

type wireValue struct {
	Text string         `json:"text"`
	Kind plan.ValueKind `json:"kind"`
}

type wireOutput struct {
	Name   string      `json:"name"`
	Action plan.Action `json:"action"`
	Before wireValue   `json:"before"`
	After  wireValue   `json:"after"`
}

type wirePolicy struct {
	Verdict  policy.Verdict   `json:"verdict"`
	Findings []policy.Finding `json:"findings"` // policy's own JSON form
	Excepted []string         `json:"excepted"`
	Err      *wireError       `json:"error"`
}

// wireError is an error's text and, for a joined error, the text of each part.
type wireError struct {
	Text  string   `json:"text"`
	Parts []string `json:"parts"` // nil: not a joined error
}

type wireGate struct {
	Allowed            bool           `json:"allowed"`
	Pending            bool           `json:"pending"`
	Reasons            []string       `json:"reasons"`
	Codes              []wireCode     `json:"reason_codes,omitempty"` // beside Reasons, index for index
	Approvals          []wireApproval `json:"approvals"`
	PolicyOverriddenBy []string       `json:"policy_overridden_by"`
}

// wireCode is what a reason carries besides its text.
type wireCode struct {
	Code    string `json:"code"`
	Pending bool   `json:"pending,omitempty"`
}

type wireApproval struct {
	Login  string    `json:"login"`
	At     time.Time `json:"at"`
	Commit string    `json:"commit"`
}

type wireApply struct {
	PlanSHA256       string       `json:"plan_sha256"`
	InputHash        string       `json:"input_hash"`
	TerraformVersion string       `json:"terraform_version"`
	Summary          plan.Summary `json:"summary"`
	Already          string       `json:"already,omitempty"`
}

func encodeRun(r report.Run, dir string) wireRun {
	w := wireRun{Kind: r.Kind, Base: r.Base, MergeBase: r.MergeBase, Commit: r.Commit, PR: r.PR, Reviewed: r.Reviewed,
		DryRun: r.DryRun, Policies: r.Policies, PolicyNotes: r.PolicyNotes, Notes: r.Notes, Cost: r.Cost}
	if v := r.Verdict; v != nil {
		w.Verdict = &wireVerdict{State: string(v.State), Description: v.Description}
	}
	if r.Projects != nil {
		w.Projects = make([]wireProject, len(r.Projects))
	}
	for i, p := range r.Projects {
		w.Projects[i] = wireProject{Name: p.Name, Dir: p.Dir, Workspace: p.Workspace, Status: p.Status, Error: p.Error,
			DurationNS: int64(p.Duration), Changes: encodeChanges(p.Changes), Bundle: relBundle(p.Bundle, dir), ReusedFrom: p.ReusedFrom,
			Policy: encodePolicy(p.Policy), Cost: p.Cost, Gate: encodeGate(p.Gate), Apply: encodeApply(p.Apply), Suggestions: p.Suggestions, Issue: p.Issue}
	}
	return w
}

func decodeRun(raw json.RawMessage, dir string) (report.Run, error) {
	var w wireRun
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // policy metadata numbers as written, as the policies gave them
	if err := dec.Decode(&w); err != nil {
		return report.Run{}, err
	}
	r := report.Run{Kind: w.Kind, Base: w.Base, MergeBase: w.MergeBase, Commit: w.Commit, PR: w.PR, Reviewed: w.Reviewed,
		DryRun: w.DryRun, Policies: w.Policies, PolicyNotes: w.PolicyNotes, Notes: w.Notes, Cost: w.Cost}
	if v := w.Verdict; v != nil {
		r.Verdict = &report.Verdict{State: report.GateState(v.State), Description: v.Description}
	}
	if w.Projects != nil {
		r.Projects = make([]report.Project, len(w.Projects))
	}
	for i, p := range w.Projects {
		r.Projects[i] = report.Project{Name: p.Name, Dir: p.Dir, Workspace: p.Workspace, Status: p.Status, Error: p.Error,
			Duration: time.Duration(p.DurationNS), Changes: decodeChanges(p.Changes), Bundle: absBundle(p.Bundle, dir), ReusedFrom: p.ReusedFrom,
			Policy: decodePolicy(p.Policy), Cost: p.Cost, Gate: decodeGate(p.Gate), Apply: decodeApply(p.Apply), Suggestions: p.Suggestions, Issue: p.Issue}
	}
	return r, nil
}

func encodeChanges(c *plan.Changes) *wireChanges {
	if c == nil {
		return nil
	}
	w := &wireChanges{TerraformVersion: c.TerraformVersion, Summary: c.Summary, Resources: encodeResources(c.Resources),
		Drift: encodeResources(c.Drift), Warnings: c.Warnings}
	if c.Outputs != nil {
		w.Outputs = make([]wireOutput, len(c.Outputs))
	}
	for i, o := range c.Outputs {
		w.Outputs[i] = wireOutput{Name: o.Name, Action: o.Action, Before: wireValue(o.Before), After: wireValue(o.After)}
	}
	return w
}

func decodeChanges(w *wireChanges) *plan.Changes {
	if w == nil {
		return nil
	}
	c := &plan.Changes{TerraformVersion: w.TerraformVersion, Summary: w.Summary, Resources: decodeResources(w.Resources),
		Drift: decodeResources(w.Drift), Warnings: w.Warnings}
	if w.Outputs != nil {
		c.Outputs = make([]plan.Output, len(w.Outputs))
	}
	for i, o := range w.Outputs {
		c.Outputs[i] = plan.Output{Name: o.Name, Action: o.Action, Before: plan.Value(o.Before), After: plan.Value(o.After)}
	}
	return c
}

func encodeResources(rs []plan.Resource) []wireResource {
	if rs == nil {
		return nil
	}
	out := make([]wireResource, len(rs))
	for i, r := range rs {
		w := wireResource{Address: r.Address, PreviousAddress: r.PreviousAddress, Deposed: r.Deposed, Mode: r.Mode, Type: r.Type,
			Name: r.Name, Action: r.Action, CreateBeforeDestroy: r.CreateBeforeDestroy, Importing: r.Importing, ImportID: r.ImportID,
			Reason: r.Reason, ReplacePaths: r.ReplacePaths}
		if r.Attributes != nil {
			w.Attributes = make([]wireAttribute, len(r.Attributes))
		}
		for j, a := range r.Attributes {
			w.Attributes[j] = wireAttribute{Path: a.Path, Before: wireValue(a.Before), After: wireValue(a.After), ForcesReplacement: a.ForcesReplacement}
		}
		out[i] = w
	}
	return out
}

func decodeResources(ws []wireResource) []plan.Resource {
	if ws == nil {
		return nil
	}
	out := make([]plan.Resource, len(ws))
	for i, w := range ws {
		r := plan.Resource{Address: w.Address, PreviousAddress: w.PreviousAddress, Deposed: w.Deposed, Mode: w.Mode, Type: w.Type,
			Name: w.Name, Action: w.Action, CreateBeforeDestroy: w.CreateBeforeDestroy, Importing: w.Importing, ImportID: w.ImportID,
			Reason: w.Reason, ReplacePaths: w.ReplacePaths}
		if w.Attributes != nil {
			r.Attributes = make([]plan.Attribute, len(w.Attributes))
		}
		for j, a := range w.Attributes {
			r.Attributes[j] = plan.Attribute{Path: a.Path, Before: plan.Value(a.Before), After: plan.Value(a.After), ForcesReplacement: a.ForcesReplacement}
		}
		out[i] = r
	}
	return out
}

func encodePolicy(r *policy.Result) *wirePolicy {
	if r == nil {
		return nil
	}
	w := &wirePolicy{Verdict: r.Verdict, Findings: r.Findings, Excepted: r.Excepted}
	if r.Err != nil {
		w.Err = &wireError{Text: r.Err.Error()}
		if j, ok := r.Err.(interface{ Unwrap() []error }); ok {
			w.Err.Parts = []string{}
			for _, e := range j.Unwrap() {
				w.Err.Parts = append(w.Err.Parts, e.Error())
			}
		}
	}
	return w
}

func decodePolicy(w *wirePolicy) *policy.Result {
	if w == nil {
		return nil
	}
	r := &policy.Result{Verdict: w.Verdict, Findings: w.Findings, Excepted: w.Excepted}
	if w.Err != nil {
		if w.Err.Parts == nil {
			r.Err = textError(w.Err.Text)
		} else {
			j := joinedError{text: w.Err.Text, parts: make([]error, len(w.Err.Parts))}
			for i, p := range w.Err.Parts {
				j.parts[i] = textError(p)
			}
			r.Err = j
		}
	}
	return r
}

// textError is an error read back: its text, nothing to unwrap.
type textError string

func (e textError) Error() string { return string(e) }

// joinedError is a joined error read back: its own text (not necessarily the parts
// joined by newlines: fmt.Errorf with several %w joins them its own way) and its parts.
type joinedError struct {
	text  string
	parts []error
}

func (e joinedError) Error() string   { return e.text }
func (e joinedError) Unwrap() []error { return e.parts }

func encodeGate(g *report.Gate) *wireGate {
	if g == nil {
		return nil
	}
	w := &wireGate{Allowed: g.Allowed, Pending: g.Pending, Reasons: g.Texts(), PolicyOverriddenBy: g.PolicyOverriddenBy}
	if g.Reasons == nil {
		w.Reasons = nil
	}
	for _, r := range g.Reasons {
		w.Codes = append(w.Codes, wireCode{Code: r.Code, Pending: r.Pending})
	}
	if g.Approvals != nil {
		w.Approvals = make([]wireApproval, len(g.Approvals))
	}
	for i, a := range g.Approvals {
		w.Approvals[i] = wireApproval(a)
	}
	return w
}

func decodeGate(w *wireGate) *report.Gate {
	if w == nil {
		return nil
	}
	g := &report.Gate{Allowed: w.Allowed, Pending: w.Pending, PolicyOverriddenBy: w.PolicyOverriddenBy}
	if w.Reasons != nil {
		g.Reasons = make([]report.Reason, len(w.Reasons))
	}
	for i, text := range w.Reasons {
		g.Reasons[i].Text = text
		if i < len(w.Codes) { // a result from before reasons had codes has none
			g.Reasons[i].Code, g.Reasons[i].Pending = w.Codes[i].Code, w.Codes[i].Pending
		}
	}
	if w.Approvals != nil {
		g.Approvals = make([]report.Approval, len(w.Approvals))
	}
	for i, a := range w.Approvals {
		g.Approvals[i] = report.Approval(a)
	}
	return g
}

func encodeApply(a *report.Apply) *wireApply {
	if a == nil {
		return nil
	}
	w := wireApply(*a)
	return &w
}

func decodeApply(w *wireApply) *report.Apply {
	if w == nil {
		return nil
	}
	a := report.Apply(*w)
	return &a
}
