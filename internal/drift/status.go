// Package drift decides what a drift check found: each project's status from its one normal
// plan (Status, Tracked), and the fold-back of drift into the code (Suggest). Running the
// checks is the pipeline's job (pipeline.RunDrift); reporting them — the issue kept per
// project, the job summary, the webhook — is notify's (notify.PublishDrift).
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
func Status(c *plan.Changes) report.Status {
	switch {
	case c == nil:
		return report.StatusFailed
	case len(c.Drift) > 0:
		return report.StatusDrifted
	case c.Summary.HasChanges():
		return report.StatusPending
	}
	return report.StatusInSync
}

// Tracked reports whether a status is news for an issue: drift, pending code or an error
// (a project that cannot be checked is not known to be in sync). Interrupted and not
// started projects say nothing about the infrastructure.
func Tracked(s report.Status) bool {
	return s == report.StatusDrifted || s == report.StatusPending || s == report.StatusFailed
}
