package render

import (
	"fmt"
	"strings"

	"github.com/tfgate/tfgate/internal/english"
	"github.com/tfgate/tfgate/internal/report"
)

// driftText is Text for a drift run: a status per project, then each project that is not
// in sync — what changed outside Terraform first, then what Git would still change.
func (t *textWriter) driftText(r report.Run) {
	t.line(capitalise(english.Plural(len(r.Projects), "project", "projects")) + " checked for drift")
	if len(r.Projects) > 0 {
		t.line("")
		t.driftTable(r)
	}
	if len(r.Notes) > 0 {
		t.line("")
		for _, n := range r.Notes {
			t.wrapped(clean(n), t.pal.paint(ansiYellow, "Note:")+" ", "      ", "")
		}
	}
	for _, p := range r.Projects {
		t.driftProject(p)
	}
	t.line("")
	t.closing(closingLabel(r.Kind), driftTotals(r))
}

func (t *textWriter) driftTable(r report.Run) {
	nameW, statusW := 0, 0
	for _, p := range r.Projects {
		nameW = max(nameW, runes(projectLabel(p)))
		statusW = max(statusW, runes(DriftWord(p.Status)))
	}
	nameW = min(nameW, max(20, t.width/2))
	for _, p := range r.Projects {
		name := projectLabel(p)
		word := DriftWord(p.Status)
		line := t.pal.paint(ansiBold, name) + strings.Repeat(" ", max(0, nameW-runes(name))) + "  " +
			t.pal.paint(statusColour(p.Status), word)
		var details []string
		if p.Changes != nil && p.Status.Succeeded() {
			if n := len(p.Changes.Drift); n > 0 {
				details = append(details, english.Plural(n, "resource", "resources")+" changed outside Terraform")
			}
			if p.Changes.Summary.HasChanges() {
				plain, _ := t.counts(p.Changes.Summary)
				details = append(details, plain+" not applied from Git")
			}
		}
		if p.Changes != nil && len(p.Changes.Checks) > 0 {
			details = append(details, english.Plural(len(p.Changes.Checks), "check", "checks")+" failed")
		}
		if p.Issue != "" {
			details = append(details, clean(p.Issue))
		}
		if len(details) > 0 {
			line += strings.Repeat(" ", statusW-runes(word)) + "  " + strings.Join(details, "; ")
		}
		t.line(line)
	}
}

func (t *textWriter) driftProject(p report.Project) {
	if p.Status == report.StatusInSync {
		return
	}
	if !p.Status.Succeeded() || p.Changes == nil {
		t.project(p) // the failure, as plan shows it
		if p.Changes != nil {
			t.checks(p.Changes.Checks) // the conditions that failed the plan
		}
		return
	}
	c := p.Changes
	t.line("")
	t.line(t.pal.paint(ansiBold, projectLabel(p)) + "  " + t.pal.paint(statusColour(p.Status), DriftWord(p.Status)))
	col := t.addrColumn(c)
	for _, w := range c.Warnings {
		t.line("  " + t.pal.paint(ansiYellow, "⚠ "+clean(w)))
	}
	if len(c.Drift) > 0 {
		t.line("  " + t.pal.paint(ansiDim, "Changed outside Terraform:"))
		for _, r := range c.Drift {
			t.resource(r, col, true)
		}
	}
	if c.Summary.HasChanges() {
		t.line("  " + t.pal.paint(ansiDim, "Not applied from Git:"))
		for _, r := range c.Resources {
			t.resource(r, col, false)
		}
		for _, o := range c.Outputs {
			t.output(o, col)
		}
	}
	t.checks(c.Checks)
	if len(p.Suggestions) > 0 {
		t.line("  " + t.pal.paint(ansiDim, "To accept the drift, change the code:"))
		for _, s := range p.Suggestions {
			t.line("    " + clean(s))
		}
	}
}

// driftTotals is the closing line: "3 projects: 1 drifted, 1 pending, 1 in sync."
func driftTotals(r report.Run) string {
	var parts []string
	for _, c := range driftCounts(r) {
		parts = append(parts, fmt.Sprintf("%d %s", c.n, DriftWord(c.status)))
	}
	out := english.Plural(len(r.Projects), "project", "projects")
	if len(parts) > 0 {
		out += ": " + strings.Join(parts, ", ")
	}
	return out + "."
}
