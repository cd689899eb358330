package pipeline

import (
	"testing"

	"github.com/tfgate/tfgate/internal/project"
	"github.com/tfgate/tfgate/internal/report"
)

// TestMergeParts: the reused projects and the parts planned come back in selection order,
// each note once, and a project no part reached (an interrupted run) as not started.
func TestMergeParts(t *testing.T) {
	all := []project.Project{{Name: "a"}, {Name: "b"}, {Name: "c"}, {Name: "d"}, {Name: "e"}}
	reused := map[int]report.Project{1: {Name: "b", Status: report.StatusPlanned, ReusedFrom: "x"}}
	first := plannedPart{idx: []int{0, 3}, run: report.Run{Notes: []string{"guard"},
		Projects: []report.Project{{Name: "a", Status: report.StatusPlanned}, {Name: "d", Status: report.StatusFailed}}}}
	second := plannedPart{idx: []int{2}, run: report.Run{Notes: []string{"guard"}, Projects: []report.Project{{Name: "c", Status: report.StatusPlanned}}}}
	run := mergeParts(all, []string{"reuse"}, reused, first, second)
	want := []struct {
		name   string
		status report.Status
	}{{"a", report.StatusPlanned}, {"b", report.StatusPlanned}, {"c", report.StatusPlanned}, {"d", report.StatusFailed}, {"e", report.StatusNotStarted}}
	if len(run.Projects) != len(want) {
		t.Fatalf("%d projects, want %d", len(run.Projects), len(want))
	}
	for i, w := range want {
		if p := run.Projects[i]; p.Name != w.name || p.Status != w.status {
			t.Errorf("project %d: %s %s, want %s %s", i, p.Name, p.Status, w.name, w.status)
		}
	}
	if run.Projects[1].ReusedFrom != "x" {
		t.Errorf("the reused project lost its origin: %+v", run.Projects[1])
	}
	if len(run.Notes) != 2 || run.Notes[0] != "reuse" || run.Notes[1] != "guard" {
		t.Errorf("notes %q, want reuse's then the plan's, once each", run.Notes)
	}
}
