package render

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"

	costpkg "github.com/tfgate/tfgate/internal/cost"
	"github.com/tfgate/tfgate/internal/english"
	"github.com/tfgate/tfgate/internal/report"
)

// maxUnpricedListed bounds the unpriced resources a project's section lists.
const maxUnpricedListed = 20

// costCell is a project's cost column: the monthly change, and how many resources it
// leaves out. "—" when the project has no cost (it failed, or the cost source has nothing
// for it).
func costCell(p report.Project) string {
	c := p.Cost
	if c == nil {
		return "—"
	}
	return mdMoney(textCostCell(p))
}

// costTotal is the sum of the projects' monthly changes, "—" when none has a cost or
// their currencies differ.
func costTotal(r report.Run) string {
	var (
		sum      costpkg.Money
		currency string
		unpriced int
	)
	for _, p := range r.Projects {
		if p.Cost == nil {
			continue
		}
		if currency != "" && p.Cost.Currency != currency {
			return "—"
		}
		currency = p.Cost.Currency
		sum += p.Cost.Delta()
		unpriced += len(p.Cost.Unpriced)
	}
	if currency == "" {
		return "—"
	}
	out := "**" + mdMoney(sum.FormatDelta(currency)) + "**"
	if unpriced > 0 {
		out += " (" + fmt.Sprint(unpriced) + " unpriced)"
	}
	return out
}

// hasCostDetails reports whether a project's section has something to say about its
// cost: a change of the monthly cost, or resources left unpriced.
func hasCostDetails(p report.Project) bool {
	return p.Cost != nil && (p.Cost.Delta() != 0 || len(p.Cost.Unpriced) > 0)
}

// mdCost is a project's cost line and its unpriced resources.
func mdCost(s *mdSection, p report.Project) {
	if !hasCostDetails(p) {
		return
	}
	c := p.Cost
	s.prose(fmt.Sprintf("**Monthly cost:** %s → %s (%s)", mdMoney(c.Before.Format(c.Currency)), mdMoney(c.After.Format(c.Currency)),
		mdMoney(c.Delta().FormatDelta(c.Currency))))
	if len(c.Unpriced) == 0 {
		return
	}
	lines := []string{fmt.Sprintf("Not priced, so not counted above (%s):", english.Plural(len(c.Unpriced), "resource", "resources"))}
	for i, u := range c.Unpriced {
		if i == maxUnpricedListed {
			lines = append(lines, fmt.Sprintf("- … and %d more", len(c.Unpriced)-i))
			break
		}
		what := u.Address
		if what == "" {
			what = u.Type
		}
		lines = append(lines, "- "+mdCode(what)+": "+mdText(u.Reason))
	}
	s.blocks = append(s.blocks, mdBlock{lines: lines})
}

// costTableRow is the summary table's total row: cells blank but the cost's.
func costTableRow(r report.Run, policies bool) string {
	row := "| **total** | |"
	if policies {
		row += " |"
	}
	return row + " " + costTotal(r) + " | |"
}

// costSourceLine says where the costs came from, under the table.
func costSourceLine(r report.Run) string {
	return "**Costs:** monthly, from " + mdText(strings.TrimSpace(r.Cost)) + " (estimates, not a bill)"
}

// mdMoney escapes the dollar signs of an amount: GitHub reads text between two of them
// on a line as math.
func mdMoney(s string) string { return strings.ReplaceAll(s, "$", `\$`) }

// jsonCost is a project's cost for the JSON report: the document policies read as
// input.cost, amounts as exact decimals.
func jsonCost(c *costpkg.Cost) json.RawMessage {
	if c == nil {
		return nil
	}
	v, err := ast.JSON(c.Term().Value)
	if err != nil {
		return nil
	}
	out, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return out
}

// textCostCell is costCell for the text report (no markdown).
func textCostCell(p report.Project) string {
	c := p.Cost
	if c == nil {
		return "—"
	}
	cell := c.Delta().FormatDelta(c.Currency)
	if n := len(c.Unpriced); n > 0 {
		cell += fmt.Sprintf(" (%d unpriced)", n)
	}
	return cell
}
