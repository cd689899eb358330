package render

import (
	"strings"

	"github.com/tfgate/tfgate/internal/english"
	"github.com/tfgate/tfgate/internal/policy"
	"github.com/tfgate/tfgate/internal/report"
)

// mdTable is the summary table: one row per project.
func mdTable(s *mdSection, r report.Run) {
	policies := r.Policies != ""
	for _, p := range r.Projects {
		policies = policies || p.Policy != nil
	}
	head := "| project | changes |"
	sep := "|---|---|"
	if policies {
		head += " policies |"
		sep += "---|"
	}
	costs := r.Cost != ""
	if costs {
		head += " monthly cost |"
		sep += "---|"
	}
	head += " risk |"
	sep += "---|"
	b := mdBlock{open: []string{head, sep}, reopen: []string{head, sep}}
	for _, p := range r.Projects {
		row := "| " + mdCellCode(projectLabel(p)) + " | " + changesCell(p) + " |"
		if policies {
			row += " " + policyCell(p) + " |"
		}
		if costs {
			row += " " + costCell(p) + " |"
		}
		b.lines = append(b.lines, row+" "+riskCell(p)+" |")
	}
	if costs {
		b.lines = append(b.lines, costTableRow(r, policies))
	}
	s.blocks = append(s.blocks, b)
}

func changesCell(p report.Project) string {
	if !p.Status.Succeeded() || p.Changes == nil {
		return statusIcon(p.Status) + " " + statusWord(p.Status)
	}
	if p.ReusedFrom != "" {
		return shortCounts(p.Changes.Summary) + " · " + ReusedNote(p.ReusedFrom)
	}
	return shortCounts(p.Changes.Summary)
}

func policyCell(p report.Project) string {
	switch {
	case p.Policy == nil && p.Status == report.StatusPlanned && p.Changes != nil:
		return "⚠️ not evaluated"
	case p.Policy == nil:
		return "—"
	}
	switch p.Policy.Verdict {
	case policy.VerdictDeny:
		return "❌ denied"
	case policy.VerdictError:
		return "❌ error"
	case policy.VerdictWarn:
		return "⚠️ " + english.Plural(p.Policy.Count(policy.LevelWarn), "warning", "warnings")
	}
	return "✅ pass"
}

func riskCell(p report.Project) string {
	var out []string
	if !p.Status.Succeeded() && p.Status != report.StatusRefused {
		out = append(out, "**unknown**")
	}
	if p.Changes != nil {
		if p.Changes.Summary.Destroy > 0 {
			out = append(out, "**destroy**")
		}
		if p.Changes.Summary.Replace > 0 {
			out = append(out, "replace")
		}
		if p.Changes.Summary.Drift > 0 {
			out = append(out, "drift")
		}
	}
	return strings.Join(out, ", ")
}
