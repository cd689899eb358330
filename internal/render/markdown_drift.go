package render

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/tfgate/tfgate/internal/english"
	"github.com/tfgate/tfgate/internal/plan"
	"github.com/tfgate/tfgate/internal/report"
)

// A drift run reads differently from a plan: each project has a verdict (drifted, pending,
// in sync, error) rather than counts to approve, and what changed outside Terraform comes
// before what Git would still change.

// driftStatuses in the order a reader cares about them.
var driftStatuses = []report.Status{report.StatusDrifted, report.StatusPending, report.StatusCheckFailed, report.StatusFailed,
	report.StatusInterrupted, report.StatusNotStarted, report.StatusInSync}

// driftVerdict is the heading's items: how many projects, then how many of each status.
func driftVerdict(r report.Run) []string {
	if len(r.Projects) == 0 {
		return []string{"no projects"}
	}
	out := []string{english.Plural(len(r.Projects), "project", "projects")}
	for _, c := range driftCounts(r) {
		out = append(out, fmt.Sprintf("%s %d %s", DriftIcon(c.status), c.n, DriftWord(c.status)))
	}
	return out
}

// driftCount is how many projects of a drift run ended in one status.
type driftCount struct {
	status report.Status
	n      int
}

// driftCounts are the statuses that occur in a drift run, in driftStatuses order, with how
// many projects ended in each: what the comment's heading, the terminal's closing line and
// the exit message (DriftSummary) all say, each in its own words.
func driftCounts(r report.Run) []driftCount {
	var out []driftCount
	for _, st := range driftStatuses {
		if n := r.Count(st); n > 0 {
			out = append(out, driftCount{st, n})
		}
	}
	return out
}

// DriftSummary is what a drift run found, in one phrase for the exit message: "1 project
// drifted, 2 projects pending, 1 project check failed"; "" when nothing drifted, no code
// waits to be applied and no check failed.
func DriftSummary(r report.Run) string {
	var parts []string
	for _, c := range driftCounts(r) {
		if c.status == report.StatusDrifted || c.status == report.StatusPending || c.status == report.StatusCheckFailed {
			parts = append(parts, english.Plural(c.n, "project", "projects")+" "+statusWord(c.status))
		}
	}
	return strings.Join(parts, ", ")
}

// mdDriftTable is the drift run's table: every project with its status, what drifted,
// what is pending and its issue.
func mdDriftTable(s *mdSection, r report.Run) {
	issues := false
	for _, p := range r.Projects {
		issues = issues || p.Issue != ""
	}
	head, sep := "| project | status | changed outside Terraform | not applied from Git |", "|---|---|---|---|"
	if issues {
		head, sep = head+" issue |", sep+"---|"
	}
	b := mdBlock{open: []string{head, sep}, reopen: []string{head, sep}}
	for _, p := range r.Projects {
		drifted, pending := "—", "—"
		if p.Changes != nil && p.Status.Succeeded() {
			drifted = pick(len(p.Changes.Drift) > 0, english.Plural(len(p.Changes.Drift), "resource", "resources"), "none")
			pending = pick(p.Changes.Summary.HasChanges(), shortCounts(p.Changes.Summary), "none")
		}
		row := "| " + mdCellCode(projectLabel(p)) + " | " + DriftIcon(p.Status) + " " + DriftWord(p.Status) + " | " + drifted + " | " + pending + " |"
		if issues {
			link := "—"
			if u := safeURL(p.Issue); u != "" {
				link = "[" + issueLinkText(u) + "](" + u + ")"
			}
			row += " " + link + " |"
		}
		b.lines = append(b.lines, row)
	}
	s.blocks = append(s.blocks, b)
}

// issueLinkText is "#12" for an issue URL ending in /issues/12, else "issue".
func issueLinkText(u string) string {
	if i := strings.LastIndex(u, "/issues/"); i >= 0 {
		if n := u[i+len("/issues/"):]; n != "" && strings.Trim(n, "0123456789") == "" {
			return "#" + n
		}
	}
	return "issue"
}

// mdDriftProject is one project's section of a drift run; none for a project in sync.
func mdDriftProject(p report.Project) (mdSection, bool) {
	s := mdSection{name: projectLabel(p), cont: "### " + mdCode(fit(projectLabel(p), 200)) + " (continued)"}
	if p.Status == report.StatusInSync {
		return s, false
	}
	s.prose("### " + DriftIcon(p.Status) + " " + mdCode(projectLabel(p)) + " — " + DriftWord(p.Status))
	s.blocks = append(s.blocks, driftBlocks(p, 0)...)
	if u := safeURL(p.Issue); u != "" {
		s.prose("Tracked in [" + issueLinkText(u) + "](" + u + ").")
	}
	return s, true
}

// driftBlocks are a project's details: its error, what changed outside Terraform, what Git
// would still change, and how to fold the drift back into the code. maxLines > 0 caps the
// lines of each code block (the rest is counted, not shown).
func driftBlocks(p report.Project, maxLines int) []mdBlock {
	var out []mdBlock
	if !p.Status.Succeeded() {
		return failedBlocks(p, maxLines)
	}
	c := p.Changes
	if c == nil {
		return out
	}
	if len(c.Warnings) > 0 {
		b := mdAlert("WARNING")
		for _, w := range c.Warnings {
			b.lines = append(b.lines, "> - "+mdLines(w, ">   "))
		}
		out = append(out, b)
	}
	if len(c.Drift) > 0 {
		var lines []string
		for _, r := range c.Drift {
			lines = append(lines, diffResource(r, true)...)
		}
		out = append(out, mdBlock{lines: []string{"**Changed outside Terraform** (" + english.Plural(len(c.Drift), "resource", "resources") + "):"}},
			mdCodeBlock("", "diff", capLines(lines, maxLines)))
	} else {
		out = append(out, mdBlock{lines: []string{"**Changed outside Terraform:** none"}})
	}
	if c.Summary.HasChanges() {
		var lines []string
		for _, r := range c.Resources {
			lines = append(lines, diffResource(r, false)...)
		}
		for _, o := range c.Outputs {
			sym, _ := actionSymbol(o.Action)
			a := plan.Attribute{Before: o.Before, After: o.After}
			lines = append(lines, fmt.Sprintf("%s output.%s: %s", sym, codeLine(o.Name), attrValue(a, o.Action == plan.ActionCreate)))
		}
		out = append(out, mdBlock{lines: []string{"**Not applied from Git** (" + strings.Join(nonZeroPhrases(c.Summary), ", ") + "):"}},
			mdCodeBlock("", "diff", capLines(lines, maxLines)))
	} else {
		out = append(out, mdBlock{lines: []string{"**Not applied from Git:** none"}})
	}
	out = append(out, mdChecks(c.Checks, maxLines)...)
	if len(p.Suggestions) > 0 {
		lines := make([]string, len(p.Suggestions))
		for i, l := range p.Suggestions {
			lines[i] = codeLine(l)
		}
		out = append(out, mdBlock{lines: []string{"**To accept the drift, change the code** (then merge it through a reviewed pull request):"}},
			mdCodeBlock("", "text", capLines(lines, maxLines)))
	}
	return out
}

// failedBlocks are the details of a project that could not be checked: its error, and the
// conditions that failed its plan, if any.
func failedBlocks(p report.Project, maxLines int) []mdBlock {
	msg := p.Error
	if msg == "" {
		msg = "no plan was produced"
	}
	out := []mdBlock{{lines: []string{"**Could not be checked** (" + DriftWord(p.Status) + "):"}},
		mdCodeBlock("", "text", capLines(cleanLines(msg), maxLines))}
	if p.Changes != nil {
		out = append(out, mdChecks(p.Changes.Checks, maxLines)...)
	}
	return out
}

// capLines keeps the first n lines (all when n <= 0) and says how many it left out.
func capLines(lines []string, n int) []string {
	if n <= 0 || len(lines) <= n {
		return lines
	}
	return append(lines[:n:n], fmt.Sprintf("… %d more lines (see the CI run's log)", len(lines)-n))
}

// DriftIssueDetails is the body of a project's drift issue below tfgate's own status line:
// the error, the redacted diffs and the fold-back suggestions, within limit characters
// (long diffs are cut, never the markdown around them).
func DriftIssueDetails(p report.Project, limit int) string {
	for maxLines := 0; ; {
		var b strings.Builder
		for _, bl := range driftBlocks(p, maxLines) {
			b.WriteString(bl.text())
			b.WriteString("\n")
		}
		out := b.String()
		if utf8.RuneCountInString(out) <= limit {
			return out
		}
		switch {
		case maxLines == 0:
			maxLines = 1000
		case maxLines > 1:
			maxLines /= 2
		default:
			return fit(out, limit) // one line per block and still too long: values are capped, cannot happen
		}
	}
}
