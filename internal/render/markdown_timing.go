package render

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tfgate/tfgate/internal/english"
	"github.com/tfgate/tfgate/internal/report"
)

// phaseOrder is the order of the timing table's phase columns; a phase not listed follows
// them in the order first seen.
var phaseOrder = []string{"queued", "init", "workspace", "plan", "show", "policy", "apply"}

// maxTimingRows bounds the timing table: it is there to spot the slow project and phase,
// not to list 500 projects (the metrics file has every one).
const maxTimingRows = 200

// mdTimings is the job summary's timing table: per project its total (Duration) and the
// time of each phase (timings, by project name), collapsed under one line. "" when there
// are no timings or no projects.
func mdTimings(r report.Run, timings map[string][]report.Phase) string {
	if timings == nil || len(r.Projects) == 0 {
		return ""
	}
	var cols []string
	for _, p := range r.Projects {
		for _, ph := range timings[p.Name] {
			if !slices.Contains(cols, ph.Name) {
				cols = append(cols, ph.Name)
			}
		}
	}
	seen := make(map[string]int, len(cols))
	for i, c := range cols {
		seen[c] = i
	}
	rank := func(name string) int {
		if i := slices.Index(phaseOrder, name); i >= 0 {
			return i
		}
		return len(phaseOrder) + seen[name]
	}
	slices.SortStableFunc(cols, func(a, b string) int { return rank(a) - rank(b) })

	var b strings.Builder
	b.WriteString("<details><summary>Timing per project and phase</summary>\n\n")
	b.WriteString("| project | total |")
	for _, c := range cols {
		b.WriteString(" " + mdText(c) + " |")
	}
	b.WriteString("\n|---|---:|" + strings.Repeat("---:|", len(cols)) + "\n")
	for i, p := range r.Projects {
		if i == maxTimingRows {
			fmt.Fprintf(&b, "| … and %s | |%s\n", english.Plural(len(r.Projects)-i, "more project", "more projects"), strings.Repeat(" |", len(cols)))
			break
		}
		sums := map[string]time.Duration{}
		for _, ph := range timings[p.Name] {
			sums[ph.Name] += ph.Duration
		}
		total := "—"
		if p.Duration > 0 || len(sums) > 0 {
			total = phaseTime(p.Duration)
		}
		b.WriteString("| " + mdCellCode(fit(projectLabel(p), 80)) + " | " + total + " |")
		for _, c := range cols {
			cell := "—"
			if d, ok := sums[c]; ok {
				cell = phaseTime(d)
			}
			b.WriteString(" " + cell + " |")
		}
		b.WriteString("\n")
	}
	b.WriteString("\n</details>\n\n")
	return b.String()
}

// phaseTime is a duration for the timing table: milliseconds under a second (most phases
// of a small project take less), else as progress shows it.
func phaseTime(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%dms", d.Milliseconds())
	}
	return duration(d)
}
