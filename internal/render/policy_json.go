package render

import (
	"github.com/tfgate/tfgate/internal/policy"
	"github.com/tfgate/tfgate/internal/report"
)

// JSONPolicies is the report-level part of the policy results.
type JSONPolicies struct {
	// Source says where the policies were read from, e.g. "base commit 3f2c1aa
	// (origin/main)" or "working tree".
	Source string `json:"source"`
	// Notes are messages about the policies themselves, e.g. that this change edits
	// policy files, which take effect only after merge.
	Notes []string `json:"notes"`
}

// JSONPolicy is the policies' verdict on one plan: in the plan report per project, and the
// whole document of `tfgate policy eval --format json`. Its keys are a superset of what
// policy eval wrote before (verdict, denied, counts, findings, excepted, error); render
// owns this one shape and keeps it stable under SchemaVersion.
type JSONPolicy struct {
	Verdict policy.Verdict `json:"verdict"` // pass|warn|deny|error
	// Summary is the verdict as the text report shows it: "pass", "2 warnings",
	// "DENIED" or "ERROR".
	Summary string `json:"summary"`
	// Denied: the plan must not be applied without a policy owner's override (a deny
	// finding, or an evaluation error, which blocks like a deny).
	Denied   bool             `json:"denied"`
	Counts   JSONPolicyCounts `json:"counts"`
	Findings []JSONFinding    `json:"findings"` // denies first, then by package, rule, address, msg
	// Excepted lists the rules ("data.pkg.deny_x") a conftest-style exception rule
	// silenced for this plan.
	Excepted []string `json:"excepted"`
	// Error is why at least one rule could not be evaluated (then verdict is "error");
	// the findings of the rules that did evaluate are still listed.
	Error string `json:"error,omitempty"`
	// Approval is what the approval rules decided (docs/approval-policies.md): required,
	// lower, teams, reasons, rules; omitted when no approval rule decided.
	Approval *policy.Approval `json:"approval,omitempty"`
}

// JSONPolicyCounts counts findings by level.
type JSONPolicyCounts struct {
	Deny int `json:"deny"`
	Warn int `json:"warn"`
}

// JSONFinding is one message from one policy rule. Msg and metadata are the policy's
// own text, escaped by the JSON encoder but not redacted here: see report.Project.Policy.
type JSONFinding struct {
	Level policy.Level `json:"level"` // deny|warn
	// Policy is the short name people see: the last segment of the package, plus the
	// rule when it has a suffix ("protected_resources", "main.deny_public_ingress").
	Policy  string `json:"policy"`
	Rule    string `json:"rule"`    // e.g. "deny", "warn_cost"
	Package string `json:"package"` // e.g. "data.tfgate.rules.protected_resources"
	Msg     string `json:"msg"`
	// Address is the resource address the rule named (its "address" key); omitted when
	// the rule gave none.
	Address string `json:"address,omitempty"`
	// Metadata holds the other keys of the rule's object value; omitted when none.
	Metadata map[string]any `json:"metadata,omitempty"`
}

func jsonPolicies(r report.Run) *JSONPolicies {
	if r.Policies == "" && len(r.PolicyNotes) == 0 {
		return nil
	}
	return &JSONPolicies{Source: r.Policies, Notes: append([]string{}, r.PolicyNotes...)}
}

func jsonPolicy(r *policy.Result) *JSONPolicy {
	if r == nil {
		return nil
	}
	out := &JSONPolicy{
		Verdict:  r.Verdict,
		Summary:  policySummary(*r),
		Denied:   r.Denied(),
		Counts:   JSONPolicyCounts{Deny: r.Count(policy.LevelDeny), Warn: r.Count(policy.LevelWarn)},
		Findings: make([]JSONFinding, len(r.Findings)),
		Excepted: append([]string{}, r.Excepted...),
	}
	for i, f := range r.Findings {
		out.Findings[i] = JSONFinding{
			Level: f.Level, Policy: f.Policy(), Rule: f.Rule, Package: f.Package,
			Msg: f.Msg, Address: f.Address, Metadata: f.Metadata,
		}
	}
	if r.Err != nil {
		out.Error = r.Err.Error()
	}
	out.Approval = r.Approval
	return out
}
