package render

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tfgate/tfgate/internal/report"
)

// runStart is when the test runs' projects start: each project's phases follow one another
// from it, as if every project started at once.
var runStart = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func phases(kv ...any) []report.Phase {
	var out []report.Phase
	at := runStart
	for i := 0; i+1 < len(kv); i += 2 {
		d := time.Duration(kv[i+1].(int)) * time.Millisecond
		out = append(out, report.Phase{Name: kv[i].(string), Start: at, Duration: d})
		at = at.Add(d)
	}
	return out
}

// TestStepSummaryTimings: the job summary's timeline and timing table, with fixed times.
// Without Timings there is neither (TestStepSummary's goldens are unchanged).
func TestStepSummaryTimings(t *testing.T) {
	tests := []struct {
		name    string
		r       report.Run
		timings map[string][]report.Phase
	}{
		{"plan", testReport(t), map[string][]report.Phase{
			"envs/dev/app":      phases("init", 900, "workspace", 100, "plan", 800, "show", 250),
			"envs/prod/app":     phases("queued", 300, "init", 700, "workspace", 100, "plan", 1000, "show", 200),
			"envs/prod/network": phases("init", 500, "workspace", 100, "plan", 150),
			"envs/staging/db":   phases("init", 600, "workspace", 100, "plan", 500, "show", 100, "policy", 150),
		}},
		{"drift", driftReport(t), map[string][]report.Phase{
			"envs/dev/app":  phases("init", 400, "workspace", 100, "plan", 400, "show", 100),
			"envs/prod/app": phases("init", 800, "workspace", 100, "plan", 900, "show", 200),
		}},
		{"apply", applyReport(), map[string][]report.Phase{
			"envs/dev/app":  phases("init", 1000, "workspace", 100, "apply", 3000),
			"envs/prod/app": phases("init", 1200, "workspace", 100, "apply", 5000, "custom", 400),
			"envs/prod/db":  phases("init", 800, "workspace", 100, "apply", 600),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := testMarkdownOptions
			opts.Timings = tt.timings
			s := StepSummary(tt.r, opts)
			golden(t, []byte(s))
			without := StepSummary(tt.r, testMarkdownOptions)
			if strings.Contains(without, "Timing per project") || strings.Contains(without, "mermaid") {
				t.Error("a timing table or timeline without timings")
			}
			if !strings.Contains(s, "```mermaid\n%%{init: {\"gantt\"") {
				t.Error("no timeline")
			}
			table := mdTimeline(tt.r, tt.timings) + mdTimings(tt.r, tt.timings)
			checkMarkdown(t, table)
			if strings.Replace(s, table, "", 1) != without {
				t.Error("the timings change more than the timeline and the table")
			}
		})
	}
}

func TestTimingTableHostileAndLong(t *testing.T) {
	hostile := "x</code></details><script>| `y` |\n# heading @team"
	r := report.Run{Projects: []report.Project{{Name: hostile, Status: report.StatusPlanned, Duration: time.Second}}}
	for i := range 250 {
		r.Projects = append(r.Projects, report.Project{Name: fmt.Sprint("p", i), Status: report.StatusPlanned, Duration: time.Second})
	}
	timings := map[string][]report.Phase{hostile: phases("init", 500, "pl|an</details>", 400)}
	s := mdTimings(r, timings)
	checkMarkdown(t, s)
	if strings.Contains(s, "<script>") || strings.Contains(s, "@team") {
		t.Errorf("not escaped:\n%s", s[:400])
	}
	if n := strings.Count(s, "\n| "); n != maxTimingRows+2 { // heading, rows, "and more"
		t.Errorf("%d table lines, want %d", n, maxTimingRows+2)
	}
	if !strings.Contains(s, "… and 51 more projects") {
		t.Error("the rows left out are not counted")
	}
	if mdTimings(report.Run{}, timings) != "" || mdTimings(r, nil) != "" {
		t.Error("a table without projects or timings")
	}
}
