package render

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tfgate/tfgate/internal/git"
	"github.com/tfgate/tfgate/internal/report"
)

// ApplyOutcome is the last line of an apply run that did not apply everything: every
// project of every run it made (the earlier merges it caught up, then its own) that was
// refused or did not finish, counted by how it ended and named —
// "2 of 4 projects did not apply: 1 refused (b of #3), 1 failed (a of #2)". Failed reports
// whether any project did not finish (exit 1; refusals alone are exit 4). "" when every
// project applied (or, in a dry run, was allowed).
func ApplyOutcome(runs []report.Run) (line string, failed bool) {
	order := []report.Status{report.StatusRefused, report.StatusFailed, report.StatusInterrupted, report.StatusNotStarted}
	names := map[report.Status][]string{}
	total, missed := 0, 0
	for _, r := range runs {
		for _, p := range r.Projects {
			total++
			if p.Status.Succeeded() {
				continue
			}
			missed++
			failed = failed || p.Status != report.StatusRefused
			if !slices.Contains(order, p.Status) { // a status no apply run has today: counted all the same
				order = append(order, p.Status)
			}
			names[p.Status] = append(names[p.Status], clean(p.Name)+runLabel(runs, r))
		}
	}
	if missed == 0 {
		return "", false
	}
	var parts []string
	for _, st := range order {
		if n := names[st]; len(n) > 0 {
			parts = append(parts, fmt.Sprintf("%d %s (%s)", len(n), statusWord(st), strings.Join(n, ", ")))
		}
	}
	return fmt.Sprintf("%d of %d projects did not apply: %s", missed, total, strings.Join(parts, ", ")), failed
}

// runLabel names r's merge after a project's name when the line covers several runs.
func runLabel(runs []report.Run, r report.Run) string {
	switch {
	case len(runs) < 2:
		return ""
	case r.PR > 0:
		return fmt.Sprintf(" of #%d", r.PR)
	case r.Commit != "":
		return " of " + clean(git.ShortSHA(r.Commit))
	}
	return ""
}
