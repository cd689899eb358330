package render

import (
	"strings"

	"github.com/tfgate/tfgate/internal/english"
	"github.com/tfgate/tfgate/internal/plan"
)

// A drift run reports failing checks (`check` blocks, conditions: plan.Changes.Checks) in
// their own section, apart from drift: a check failure says the infrastructure does not
// do what its code asserts, and nothing of it can be folded back into the code.

// checkLines are the failing checks as lines: the address and its status, then each
// problem's message indented below, every line cleaned for a terminal or a code block.
// The messages were masked when the plan was read (plan.Check).
func checkLines(checks []plan.Check) []string {
	var lines []string
	for _, c := range checks {
		head := "✗ " + clean(c.Address)
		if c.Status == "error" {
			head += " (could not be evaluated)"
		}
		lines = append(lines, head)
		for _, p := range c.Problems {
			for _, l := range strings.Split(strings.TrimRight(p, "\n"), "\n") {
				lines = append(lines, "    "+clean(l))
			}
		}
	}
	return lines
}

// checksHeading is the section's title: "Checks failed (2 checks)".
func checksHeading(checks []plan.Check) string {
	return "Checks failed (" + english.Plural(len(checks), "check", "checks") + ")"
}

// mdChecks is the failing checks' section of a drift project; none when every check passed.
func mdChecks(checks []plan.Check, maxLines int) []mdBlock {
	if len(checks) == 0 {
		return nil
	}
	return []mdBlock{
		{lines: []string{"**" + checksHeading(checks) + "** — a `check` block or condition does not hold; this is not drift, and tfgate never fixes it:"}},
		mdCodeBlock("", "text", capLines(checkLines(checks), maxLines)),
	}
}

// checks writes the failing checks' section of a drift project in the terminal.
func (t *textWriter) checks(checks []plan.Check) {
	if len(checks) == 0 {
		return
	}
	t.line("  " + t.pal.paint(ansiDim, checksHeading(checks)+":"))
	for _, l := range checkLines(checks) {
		t.line("    " + l)
	}
}

// JSONCheck is one failing check in the JSON report.
type JSONCheck struct {
	Address  string   `json:"address"`  // check.NAME, a resource address or output.NAME
	Kind     string   `json:"kind"`     // check, resource or output_value
	Status   string   `json:"status"`   // fail, or error when it could not be evaluated
	Problems []string `json:"problems"` // the error messages, masked
}

func jsonChecks(c *plan.Changes) []JSONCheck {
	if c == nil {
		return nil
	}
	var out []JSONCheck
	for _, k := range c.Checks {
		out = append(out, JSONCheck{Address: k.Address, Kind: k.Kind, Status: k.Status, Problems: append([]string{}, k.Problems...)})
	}
	return out
}
