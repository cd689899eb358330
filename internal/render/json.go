package render

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/tfgate/tfgate/internal/plan"
	"github.com/tfgate/tfgate/internal/report"
)

// SchemaVersion of the JSON documents below. Fields may be added without a bump; a field
// is never removed, renamed or changed in meaning without one.
const SchemaVersion = 1

// JSONReport is the document `tfgate plan --format json` (and drift) writes to stdout.
//
// Every list is present (possibly empty), never null. Every value text in it has been
// redacted: sensitive values read "(sensitive)", masked secrets "(masked)". Policy messages
// are the policies' own text (see JSONFinding).
type JSONReport struct {
	SchemaVersion int           `json:"schema_version"` // 1
	Kind          report.Kind   `json:"kind"`           // plan, drift, gate or apply
	Base          string        `json:"base"`           // ref compared with, "" for --all or explicit projects
	MergeBase     string        `json:"merge_base"`     // short sha of the merge base
	Projects      []JSONProject `json:"projects"`       // in project order
	Totals        JSONTotals    `json:"totals"`         // sums over planned projects (gate and apply: over the verified plans)
	Failed        int           `json:"failed"`         // projects that did not finish: failed, interrupted or not started
	HasChanges    bool          `json:"has_changes"`    // applying any plan would change something
	// Policies says where the policies came from; null when no policies are configured.
	Policies *JSONPolicies `json:"policies"`
	// Notes are about the run as a whole (e.g. a project removed from the repository).
	Notes []string `json:"notes"`
	// Statuses counts the projects by status (drift runs: drifted, pending, in_sync,
	// failed…; gate and apply runs: allowed, applied, refused, failed…); omitted for plan
	// runs.
	Statuses map[report.Status]int `json:"statuses,omitempty"`
	// Gate and apply runs only (absent from plan and drift documents): which pull request
	// and commits were judged, and the gate's verdict.
	*JSONReview
}

// JSONReview is what a gate or apply run adds to the top of its JSONReport.
type JSONReview struct {
	PR       int    `json:"pr"`       // the pull request judged; 0 when none
	Reviewed string `json:"reviewed"` // its head commit, which reviewers approved and the plans were made on (full sha)
	Commit   string `json:"commit"`   // apply: the merge commit applied (full sha); "" for gate runs or when unknown
	DryRun   bool   `json:"dry_run"`  // apply --dry-run: everything was verified, nothing applied
	// Verdict is the gate's verdict on the pull request, as its commit status says it;
	// null when the gate was not evaluated.
	Verdict *JSONVerdict `json:"verdict"`
}

// JSONVerdict is the gate's verdict on a whole pull request.
type JSONVerdict struct {
	State       string `json:"state"`       // success, pending (waiting for reviews) or failure
	Description string `json:"description"` // one line of at most 140 characters
}

// JSONProjectReview is what a gate or apply run adds to each JSONProject.
type JSONProjectReview struct {
	// Gate is the approval gate's verdict on the project; null when it was not evaluated
	// (e.g. the project's bundle could not be read).
	Gate *JSONGate `json:"gate"`
	// Apply describes the verified bundle applied (or, in a dry run or a gate run, that
	// would be); null when no bundle was verified. Its summary is the plan's; the
	// project's own changes (resources, summary…) are empty unless the run read the plan.
	Apply *JSONApply `json:"apply"`
}

// JSONGate is the approval gate's verdict on one project.
type JSONGate struct {
	Allowed bool `json:"allowed"`
	// Pending: the only reasons are missing approvals, which more reviews can give.
	Pending bool     `json:"pending"`
	Reasons []string `json:"reasons"` // why not, one sentence each; empty when allowed
	// ReasonDetails are the same reasons, in the same order, with their codes (the table
	// in docs/gate-and-apply.md) and whether more reviews can lift them.
	ReasonDetails      []JSONReason   `json:"reason_details"`
	Approvals          []JSONApproval `json:"approvals"`            // the reviews that counted, oldest first
	PolicyOverriddenBy []string       `json:"policy_overridden_by"` // policy owners whose approval overrode a deny
}

// JSONReason is one reason a project may not apply.
type JSONReason struct {
	Code    string `json:"code"`    // stable, e.g. "approvals", "stale-inputs"; "" from a result an older tfgate wrote
	Text    string `json:"text"`    // the sentence of reasons
	Pending bool   `json:"pending"` // more reviews can lift it
}

// JSONApproval is one review that counted.
type JSONApproval struct {
	Login  string    `json:"login"`
	At     time.Time `json:"at"`     // when it was submitted, RFC 3339 in UTC
	Commit string    `json:"commit"` // the commit it approved (full sha)
}

// JSONApply is a project's verified plan bundle.
type JSONApply struct {
	PlanSHA256       string       `json:"plan_sha256"`       // of the plan file
	InputHash        string       `json:"input_hash"`        // of the project's inputs, as planned and found on the merge commit
	TerraformVersion string       `json:"terraform_version"` // planned and applied with
	Summary          plan.Summary `json:"summary"`           // what the plan changes
	// AlreadyApplied says how tfgate knows an earlier run applied this plan (this run
	// applied nothing); absent when this run applied it.
	AlreadyApplied string `json:"already_applied,omitempty"`
}

// JSONTotals is the summary (plan.Summary's JSON form) summed over the planned projects,
// plus the number of projects a policy denied (a deny finding or an evaluation error; they
// need an override to apply).
type JSONTotals struct {
	Summary plan.Summary `json:"-"` // written inline, see MarshalJSON
	Denied  int          `json:"-"`
}

// jsonTotals is JSONTotals as written: the summary's keys, then denied.
type jsonTotals struct {
	summaryCounts
	HasChanges bool `json:"has_changes"`
	Denied     int  `json:"denied"`
}

type summaryCounts plan.Summary // plan.Summary without its MarshalJSON, to embed its keys

// MarshalJSON writes the summary's keys and denied in one object.
func (t JSONTotals) MarshalJSON() ([]byte, error) {
	return json.Marshal(jsonTotals{summaryCounts(t.Summary), t.Summary.HasChanges(), t.Denied})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (t *JSONTotals) UnmarshalJSON(b []byte) error {
	var in jsonTotals
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	*t = JSONTotals{Summary: plan.Summary(in.summaryCounts), Denied: in.Denied}
	return nil
}

// JSONProject is one project's result.
type JSONProject struct {
	Name      string `json:"name"`
	Dir       string `json:"dir"`
	Workspace string `json:"workspace"`
	// Status is "planned" or "failed" ("drifted", "pending", "check_failed", "in_sync" or
	// "failed" in a drift run; "allowed" or "refused" in a gate run; "applied", "refused" or "failed" in
	// an apply run, "allowed" for verified but not applied in a dry run); an interrupted run
	// also reports "interrupted" (stopped while it ran) and "not_started".
	Status     report.Status `json:"status"`
	Error      string        `json:"error,omitempty"`     // why it failed
	DurationMS int64         `json:"duration_ms"`         // wall time of init + plan + show
	PlanFile   string        `json:"plan_file,omitempty"` // bundle directory when --out was given
	// ReusedFrom is the commit whose plan a push reused (docs/busy-repositories.md), and
	// Reused says so in words; both absent when the project was planned in this run.
	ReusedFrom string `json:"reused_from,omitempty"`
	Reused     string `json:"reused,omitempty"`
	// Policy is the policies' verdict on this project's plan; null when it was not
	// evaluated (no policies configured, or the project failed to plan).
	Policy *JSONPolicy `json:"policy"`
	// Cost is the project's monthly cost as policies read it (input.cost, docs/cost.md);
	// absent when no cost source is configured or it has nothing for this project.
	Cost json.RawMessage `json:"cost,omitempty"`
	// Issue is the URL of the project's drift issue (drift runs that report to GitHub).
	Issue string `json:"issue,omitempty"`
	// Suggestions are the edits that would fold drift back into the code (drift runs).
	Suggestions []string `json:"suggestions,omitempty"`
	// FoldBack is the project's fold-back pull request, or why it has none (drift runs with
	// --fold-back-pr; foldback.go).
	FoldBack *JSONFoldBack `json:"fold_back,omitempty"`
	// FailedChecks are the checks that failed or errored (check blocks, conditions;
	// Terraform 1.5+), masked; absent when every check passed.
	FailedChecks []JSONCheck `json:"failed_checks,omitempty"`
	// Gate and apply runs only (absent from plan and drift documents): the gate's verdict
	// and the verified bundle.
	*JSONProjectReview
	JSONChanges
}

// JSONPlan is the document `tfgate render PLAN_JSON --format json` writes.
type JSONPlan struct {
	SchemaVersion int `json:"schema_version"` // 1
	JSONChanges
}

// JSONChanges is the redacted content of one plan. For a failed project it is empty.
type JSONChanges struct {
	TerraformVersion string         `json:"terraform_version"`
	Summary          plan.Summary   `json:"summary"`
	Resources        []JSONResource `json:"resources"` // resources the plan changes, in plan order
	Outputs          []JSONOutput   `json:"outputs"`   // changed root outputs, by name
	Drift            []JSONResource `json:"drift"`     // objects changed outside Terraform
	Warnings         []string       `json:"warnings"`  // about the plan itself (incomplete, hidden values)
}

// The summary of changes is plan.Summary's JSON form: counts of add, change, destroy,
// replace, import, move, read, forget, outputs, actions, drift, and has_changes. A
// replacement counts only in replace; import and move count in addition to the resource's
// action. has_changes follows terraform -detailed-exitcode (drift alone is not a change).

// JSONResource is one changed resource instance.
type JSONResource struct {
	Address         string      `json:"address"`
	PreviousAddress string      `json:"previous_address,omitempty"` // set when moved
	Deposed         string      `json:"deposed,omitempty"`          // deposed object key
	Mode            string      `json:"mode"`                       // "managed" or "data"
	Type            string      `json:"type"`
	Name            string      `json:"name"`
	Action          plan.Action `json:"action"` // create|update|delete|replace|read|forget|no-op
	// CreateBeforeDestroy: a replacement creates the new object first.
	CreateBeforeDestroy bool            `json:"create_before_destroy,omitempty"`
	Importing           bool            `json:"importing"`
	ImportID            string          `json:"import_id,omitempty"`
	Reason              string          `json:"reason,omitempty"`        // why terraform chose the action
	ReplacePaths        []string        `json:"replace_paths,omitempty"` // attributes forcing replacement
	Attributes          []JSONAttribute `json:"attributes"`
}

// JSONAttribute is one changed attribute. For a created resource before is null.
type JSONAttribute struct {
	Path              string    `json:"path"` // e.g. "tags.env", "ingress[0].cidr_blocks"; "" = whole object
	Before            JSONValue `json:"before"`
	After             JSONValue `json:"after"`
	ForcesReplacement bool      `json:"forces_replacement"`
}

// JSONValue is a display-ready value: text is HCL-like ("quoted strings", [lists],
// {k = v}) or one of "(known after apply)", "(sensitive)", "null"; kind says which.
type JSONValue struct {
	Text string         `json:"text"`
	Kind plan.ValueKind `json:"kind"` // known|unknown|sensitive|null
}

// JSONOutput is one changed root module output.
type JSONOutput struct {
	Name   string      `json:"name"`
	Action plan.Action `json:"action"`
	Before JSONValue   `json:"before"`
	After  JSONValue   `json:"after"`
}

// JSON writes the report as a JSONReport.
func JSON(w io.Writer, r report.Run) error {
	doc := JSONReport{
		SchemaVersion: SchemaVersion,
		Base:          r.Base,
		MergeBase:     r.MergeBase,
		Projects:      make([]JSONProject, 0, len(r.Projects)),
		Kind:          kindOf(r),
		Totals:        JSONTotals{Summary: r.Totals(), Denied: r.Denied()},
		Failed:        len(r.Unfinished()),
		HasChanges:    r.HasChanges(),
		Policies:      jsonPolicies(r),
		Notes:         append([]string{}, r.Notes...),
	}
	review := isReview(r.Kind)
	if r.Kind == report.KindDrift || review {
		doc.Statuses = map[report.Status]int{}
	}
	if review {
		// The plans judged are the verified bundles', whose summaries the run carries
		// (their changes need not have been read again).
		doc.Totals.Summary = reviewTotals(r)
		doc.HasChanges = doc.Totals.Summary.HasChanges()
		doc.JSONReview = &JSONReview{PR: r.PR, Reviewed: r.Reviewed, Commit: r.Commit, DryRun: r.DryRun}
		if v := r.Verdict; v != nil {
			doc.Verdict = &JSONVerdict{State: string(v.State), Description: v.Description}
		}
	}
	for _, p := range r.Projects {
		jp := JSONProject{
			Name: p.Name, Dir: p.Dir, Workspace: p.Workspace, Status: p.Status, Error: p.Error,
			DurationMS: p.Duration.Milliseconds(), PlanFile: p.Bundle,
			ReusedFrom: p.ReusedFrom, Reused: ReusedNote(p.ReusedFrom), FoldBack: jsonFoldBack(p.FoldBack),
			Policy: jsonPolicy(p.Policy), Cost: jsonCost(p.Cost), Issue: p.Issue, Suggestions: p.Suggestions, FailedChecks: jsonChecks(p.Changes), JSONChanges: jsonChanges(p.Changes),
		}
		if review {
			jp.JSONProjectReview = &JSONProjectReview{Gate: jsonGate(p.Gate), Apply: jsonApply(p.Apply)}
		}
		doc.Projects = append(doc.Projects, jp)
		if doc.Statuses != nil {
			doc.Statuses[p.Status]++
		}
	}
	return writeJSON(w, doc)
}

// PlanJSON writes one plan's changes as a JSONPlan.
func PlanJSON(w io.Writer, c *plan.Changes) error {
	return writeJSON(w, JSONPlan{SchemaVersion: SchemaVersion, JSONChanges: jsonChanges(c)})
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("write JSON report: %w", err)
	}
	return nil
}

func jsonChanges(c *plan.Changes) JSONChanges {
	out := JSONChanges{Resources: []JSONResource{}, Outputs: []JSONOutput{}, Drift: []JSONResource{}, Warnings: []string{}}
	if c == nil {
		return out
	}
	out.TerraformVersion = c.TerraformVersion
	out.Summary = c.Summary
	for _, r := range c.Resources {
		out.Resources = append(out.Resources, jsonResource(r))
	}
	for _, r := range c.Drift {
		out.Drift = append(out.Drift, jsonResource(r))
	}
	for _, o := range c.Outputs {
		out.Outputs = append(out.Outputs, JSONOutput{Name: o.Name, Action: o.Action, Before: jsonValue(o.Before), After: jsonValue(o.After)})
	}
	out.Warnings = append(out.Warnings, c.Warnings...)
	return out
}

// reviewTotals sums what the plans of a gate or apply run change.
func reviewTotals(r report.Run) plan.Summary {
	var s plan.Summary
	for _, p := range r.Projects {
		if ps, ok := summaryOf(p); ok {
			s = s.Plus(ps)
		}
	}
	return s
}

func jsonGate(g *report.Gate) *JSONGate {
	if g == nil {
		return nil
	}
	out := &JSONGate{Allowed: g.Allowed, Pending: g.Pending, Reasons: g.Texts(), ReasonDetails: make([]JSONReason, len(g.Reasons)),
		Approvals: make([]JSONApproval, len(g.Approvals)), PolicyOverriddenBy: append([]string{}, g.PolicyOverriddenBy...)}
	for i, a := range g.Approvals {
		out.Approvals[i] = JSONApproval{Login: a.Login, At: a.At.UTC(), Commit: a.Commit}
	}
	for i, r := range g.Reasons {
		out.ReasonDetails[i] = JSONReason(r)
	}
	return out
}

func jsonApply(a *report.Apply) *JSONApply {
	if a == nil {
		return nil
	}
	return &JSONApply{PlanSHA256: a.PlanSHA256, InputHash: a.InputHash, TerraformVersion: a.TerraformVersion, Summary: a.Summary, AlreadyApplied: a.Already}
}

func kindOf(r report.Run) report.Kind {
	if r.Kind == "" {
		return report.KindPlan
	}
	return r.Kind
}

func jsonResource(r plan.Resource) JSONResource {
	out := JSONResource{
		Address: r.Address, PreviousAddress: r.PreviousAddress, Deposed: r.Deposed, Mode: r.Mode,
		Type: r.Type, Name: r.Name, Action: r.Action, CreateBeforeDestroy: r.CreateBeforeDestroy, Importing: r.Importing, ImportID: r.ImportID,
		Reason: r.Reason, ReplacePaths: r.ReplacePaths, Attributes: make([]JSONAttribute, len(r.Attributes)),
	}
	for i, a := range r.Attributes {
		out.Attributes[i] = JSONAttribute{Path: a.Path, Before: jsonValue(a.Before), After: jsonValue(a.After), ForcesReplacement: a.ForcesReplacement}
	}
	return out
}

func jsonValue(v plan.Value) JSONValue {
	return JSONValue{Text: v.Text, Kind: v.Kind}
}
