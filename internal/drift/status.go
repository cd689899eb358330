// Package drift classifies a drift check and helps fold drift back into Git: Status says
// whether a project drifted, has code in Git not yet applied, or is in sync; Tracked says
// which drifted resources tfgate reports.
//
// Fold-back (foldback*.go): for each drifted attribute whose value is a literal in the
// project's own .tf files or its local modules, Suggest names the file and line and the
// edit that makes the code say what the infrastructure now is; Patch writes those edits as
// a unified diff. Values that come from variables, expressions or modules outside the
// repository are named as such, never guessed, and sensitive values are never written.
//
// Running the check is internal/pipeline's (RunDrift); its issues and webhook are
// internal/notify's; its text is internal/render's.
package drift

import (
	"github.com/tfgate/tfgate/internal/plan"
	"github.com/tfgate/tfgate/internal/report"
)

// Status is what one successful plan says about a project: drifted when anything changed
// outside Terraform (the plan's resource_drift: a normal plan refreshes every resource in
// state and lists every out-of-band change there, see internal/testprovider/drift_test.go),
// else pending when applying the code would change something, else in sync. Drift wins
// over pending: it is the news a human must act on; the pending changes are shown too.
// A project with neither whose plan reports a failing check (a `check` block's assertion,
// Terraform 1.5+) is check failed, not in sync; a drifted or pending project's failing
// checks are reported beside its drift (plan.Changes.Checks). A check failure is never
// drift: nothing in it can be folded back into the code.
func Status(c *plan.Changes) report.Status {
	switch {
	case c == nil:
		return report.StatusFailed
	case len(c.Drift) > 0:
		return report.StatusDrifted
	case c.Summary.HasChanges():
		return report.StatusPending
	case len(c.Checks) > 0:
		return report.StatusCheckFailed
	}
	return report.StatusInSync
}

// Tracked reports whether a status is news for an issue: drift, pending code, a failed check or an error
// (a project that cannot be checked is not known to be in sync). Interrupted and not
// started projects say nothing about the infrastructure.
func Tracked(s report.Status) bool {
	return s == report.StatusDrifted || s == report.StatusPending || s == report.StatusCheckFailed || s == report.StatusFailed
}
