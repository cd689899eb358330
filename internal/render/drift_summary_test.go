package render

import (
	"fmt"
	"testing"

	"github.com/tfgate/tfgate/internal/report"
)

// The exit message, the comment's heading and the terminal's closing line count alike.
func TestDriftSummary(t *testing.T) {
	run := func(statuses ...report.Status) report.Run {
		r := report.Run{Kind: report.KindDrift}
		for _, st := range statuses {
			r.Projects = append(r.Projects, report.Project{Name: string(st), Status: st})
		}
		return r
	}
	for _, tt := range []struct {
		run              report.Run
		summary, closing string
		heading          []string
	}{
		{run(), "", "0 projects.", []string{"no projects"}},
		{run(report.StatusInSync), "", "1 project: 1 in sync.", []string{"1 project", "✅ 1 in sync"}},
		{run(report.StatusPending, report.StatusDrifted, report.StatusDrifted, report.StatusFailed),
			"2 projects drifted, 1 project pending", "4 projects: 2 drifted, 1 pending, 1 error.",
			[]string{"4 projects", "⚡ 2 drifted", "⏳ 1 pending", "💥 1 error"}},
	} {
		if got := DriftSummary(tt.run); got != tt.summary {
			t.Errorf("DriftSummary = %q, want %q", got, tt.summary)
		}
		if got := driftTotals(tt.run); got != tt.closing {
			t.Errorf("driftTotals = %q, want %q", got, tt.closing)
		}
		if got := driftVerdict(tt.run); fmt.Sprint(got) != fmt.Sprint(tt.heading) {
			t.Errorf("driftVerdict = %q, want %q", got, tt.heading)
		}
	}
}
