package report

import (
	"testing"

	"github.com/tfgate/tfgate/internal/plan"
	"github.com/tfgate/tfgate/internal/policy"
)

func TestRunCounts(t *testing.T) {
	r := Run{Kind: KindPlan, Projects: []Project{
		{Name: "a", Status: StatusPlanned, Changes: &plan.Changes{Summary: plan.Summary{Add: 2}}, Policy: &policy.Result{Verdict: policy.VerdictDeny}},
		{Name: "b", Status: StatusPlanned, Changes: &plan.Changes{Summary: plan.Summary{Destroy: 1}}, Policy: &policy.Result{Verdict: policy.VerdictWarn}},
		{Name: "c", Status: StatusFailed},
		{Name: "d", Status: StatusInterrupted},
		{Name: "e", Status: StatusNotStarted},
		{Name: "f", Status: StatusRefused},
	}}
	if got := r.Totals(); got.Add != 2 || got.Destroy != 1 {
		t.Errorf("Totals = %+v", got)
	}
	var names string
	for _, p := range r.Unfinished() {
		names += p.Name
	}
	if names != "cde" {
		t.Errorf("Unfinished = %s, want cde (a refusal is a verdict, not a failure)", names)
	}
	if r.Denied() != 1 || !r.HasChanges() || r.Count(StatusPlanned) != 2 {
		t.Errorf("Denied %d HasChanges %v Count %d", r.Denied(), r.HasChanges(), r.Count(StatusPlanned))
	}
}

func TestStatusSucceeded(t *testing.T) {
	for s, want := range map[Status]bool{
		StatusPlanned: true, StatusApplied: true, StatusInSync: true, StatusDrifted: true, StatusPending: true,
		StatusRefused: false, StatusFailed: false, StatusNotStarted: false, StatusInterrupted: false,
	} {
		if s.Succeeded() != want {
			t.Errorf("%s.Succeeded() = %v", s, !want)
		}
	}
}
