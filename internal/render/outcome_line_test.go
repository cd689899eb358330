package render

import (
	"testing"

	"github.com/tfgate/tfgate/internal/report"
)

func TestApplyOutcome(t *testing.T) {
	p := func(name string, s report.Status) report.Project { return report.Project{Name: name, Status: s} }
	cases := []struct {
		runs   []report.Run
		line   string
		failed bool
	}{
		{[]report.Run{{PR: 3, Projects: []report.Project{p("a", report.StatusApplied)}}}, "", false},
		{[]report.Run{{PR: 3, Projects: []report.Project{p("a", report.StatusApplied), p("b", report.StatusRefused)}}},
			"1 of 2 projects did not apply: 1 refused (b)", false},
		{[]report.Run{
			{PR: 4, Projects: []report.Project{p("a", report.StatusFailed), p("b", report.StatusApplied)}},
			{Commit: "0123456789abcdef", Projects: []report.Project{p("b", report.StatusRefused), p("c\x1b[31m", report.StatusRefused), p("d", report.StatusNotStarted)}},
		}, "4 of 5 projects did not apply: 2 refused (b of 0123456, c\\x1b[31m of 0123456), 1 failed (a of #4), 1 not started (d of 0123456)", true},
	}
	for _, c := range cases {
		line, failed := ApplyOutcome(c.runs)
		if line != c.line || failed != c.failed {
			t.Errorf("ApplyOutcome = %q, %v; want %q, %v", line, failed, c.line, c.failed)
		}
	}
}
