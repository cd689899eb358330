package pipeline

import (
	"bytes"
	"encoding/json"
	"os"
	"time"

	"github.com/tfgate/tfgate/internal/plan"
	"github.com/tfgate/tfgate/internal/report"
	"github.com/tfgate/tfgate/internal/stage"
)

// AuditEntry is one line of the --audit-log file: what apply did with one project, who
// approved it and which plan it applied. Every text in it is masked like the report.
type AuditEntry struct {
	Time             time.Time       `json:"time"` // when the run finished
	Repository       string          `json:"repository"`
	PR               int             `json:"pr"`
	ReviewedCommit   string          `json:"reviewed_commit"` // the pull request's head, where the plans were reviewed
	MergeCommit      string          `json:"merge_commit"`    // the commit applied
	Project          string          `json:"project"`
	Dir              string          `json:"dir"`
	Workspace        string          `json:"workspace"`
	Outcome          report.Status   `json:"outcome"` // applied, refused, failed, interrupted, not_started, allowed (dry run)
	Reasons          []string        `json:"reasons"` // why it was refused, or the error
	Approvals        []AuditApproval `json:"approvals"`
	PolicyOverride   []string        `json:"policy_overridden_by"`
	PlanSHA256       string          `json:"plan_sha256"`
	InputHash        string          `json:"input_hash"`
	TerraformVersion string          `json:"terraform_version"`
	AlreadyApplied   string          `json:"already_applied,omitempty"` // an earlier run applied this plan: how tfgate knows
	Summary          *plan.Summary   `json:"summary"`                   // what the plan changes; null without a bundle
	DurationMS       int64           `json:"duration_ms"`
	DryRun           bool            `json:"dry_run"`
	RunURL           string          `json:"run_url"`
	TfgateVersion    string          `json:"tfgate_version"`
}

// AuditApproval is an approval that counted.
type AuditApproval struct {
	Login  string    `json:"login"`
	At     time.Time `json:"at"`
	Commit string    `json:"commit"`
}

// AuditEntries are the audit lines of an apply run, one per project.
func AuditEntries(run report.Run, repo, runURL, version string, now time.Time) []AuditEntry {
	out := make([]AuditEntry, 0, len(run.Projects))
	for _, p := range run.Projects {
		e := AuditEntry{Time: now.UTC(), Repository: repo, PR: run.PR, ReviewedCommit: run.Reviewed, MergeCommit: run.Commit,
			Project: p.Name, Dir: p.Dir, Workspace: p.Workspace, Outcome: p.Status, Reasons: []string{}, Approvals: []AuditApproval{},
			PolicyOverride: []string{}, DurationMS: p.Duration.Milliseconds(), DryRun: run.DryRun, RunURL: runURL, TfgateVersion: version}
		if g := p.Gate; g != nil {
			e.Reasons = append(e.Reasons, g.Texts()...)
			for _, a := range g.Approvals {
				e.Approvals = append(e.Approvals, AuditApproval{Login: a.Login, At: a.At.UTC(), Commit: a.Commit})
			}
			e.PolicyOverride = append(e.PolicyOverride, g.PolicyOverriddenBy...)
		}
		if p.Error != "" && p.Status != report.StatusRefused {
			e.Reasons = append(e.Reasons, p.Error)
		}
		if a := p.Apply; a != nil {
			e.PlanSHA256, e.InputHash, e.TerraformVersion, e.AlreadyApplied = a.PlanSHA256, a.InputHash, a.TerraformVersion, a.Already
			s := a.Summary
			e.Summary = &s
		}
		out = append(out, e)
	}
	return out
}

// AppendAudit appends the entries to path as JSON lines, in one write, creating the file
// (readable by its owner only) when needed.
func AppendAudit(path string, entries []AuditEntry) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, e := range entries {
		if err := enc.Encode(e); err != nil {
			return err
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return stage.Optionf("{AuditLog}: %w", err)
	}
	if _, err := f.Write(buf.Bytes()); err != nil {
		f.Close()
		return stage.Optionf("{AuditLog} %s: %w", path, err)
	}
	return f.Close()
}
