package drift

import (
	"testing"

	"github.com/tfgate/tfgate/internal/plan"
	"github.com/tfgate/tfgate/internal/report"
)

func TestStatus(t *testing.T) {
	drifted := []plan.Resource{{Address: "fakecloud_object.web", Action: plan.ActionUpdate}}
	pending := []plan.Resource{{Address: "fakecloud_object.db", Action: plan.ActionUpdate}}
	failed := []plan.Check{{Address: "check.health", Kind: "check", Status: "fail"}}
	for _, tt := range []struct {
		name string
		c    *plan.Changes
		want report.Status
	}{
		{"no plan", nil, report.StatusFailed},
		{"nothing", &plan.Changes{}, report.StatusInSync},
		{"drift only", &plan.Changes{Drift: drifted, Summary: plan.Summary{Drift: 1}}, report.StatusDrifted},
		{"pending only", &plan.Changes{Resources: pending, Summary: plan.Summary{Change: 1}}, report.StatusPending},
		{"both: drift wins", &plan.Changes{Drift: drifted, Resources: pending, Summary: plan.Summary{Change: 1, Drift: 1}}, report.StatusDrifted},
		{"output change only is pending", &plan.Changes{Summary: plan.Summary{Outputs: 1}}, report.StatusPending},
		// A listed no-op (a move) counts through the summary, not the list.
		{"a move is pending", &plan.Changes{Summary: plan.Summary{Move: 1}}, report.StatusPending},
		// A failing check is not drift; drift and pending code are still told first, and
		// the check is reported beside them (Changes.Checks).
		{"a failed check only", &plan.Changes{Checks: failed}, report.StatusCheckFailed},
		{"drift and a failed check", &plan.Changes{Drift: drifted, Checks: failed, Summary: plan.Summary{Drift: 1}}, report.StatusDrifted},
		{"pending and a failed check", &plan.Changes{Checks: failed, Summary: plan.Summary{Change: 1}}, report.StatusPending},
	} {
		if got := Status(tt.c); got != tt.want {
			t.Errorf("%s: Status = %s, want %s", tt.name, got, tt.want)
		}
	}
}

func TestTracked(t *testing.T) {
	for s, want := range map[report.Status]bool{
		report.StatusDrifted: true, report.StatusPending: true, report.StatusFailed: true, report.StatusCheckFailed: true,
		report.StatusInSync: false, report.StatusInterrupted: false, report.StatusNotStarted: false,
	} {
		if Tracked(s) != want {
			t.Errorf("Tracked(%s) = %v", s, !want)
		}
	}
}
