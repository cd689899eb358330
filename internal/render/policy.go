package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/tfgate/tfgate/internal/english"
	"github.com/tfgate/tfgate/internal/plan"
	"github.com/tfgate/tfgate/internal/policy"
	"github.com/tfgate/tfgate/internal/report"
)

// Layout of a finding, aligned so that messages start in one column whatever the level:
//
//	"  ⚠ warn  blast_radius: 2 resources change in production (limit 1)"
//	"  ✗ deny  protected_resources: terraform_data.vpc: deleting a protected resource"
//	"          (continued, wrapped to the width)"
//	"  ✗ error rule data.x.deny: eval_type_error: …"
const findingIndent = "          " // width of "  ✗ deny  "

// PolicyText writes one policy result (`tfgate policy eval`): the verdict line, then the
// findings exactly as the plan report lists them under a project.
func PolicyText(w io.Writer, r policy.Result, opts TextOptions) error {
	t := newTextWriter(w, opts)
	line := "policies: " + t.pal.paint(verdictColour(r.Verdict), policySummary(r))
	var counts []string
	if n := r.Count(policy.LevelDeny); n > 0 {
		counts = append(counts, fmt.Sprintf("%d denied", n))
	}
	if n := r.Count(policy.LevelWarn); n > 0 && r.Verdict != policy.VerdictWarn {
		counts = append(counts, english.Plural(n, "warning", "warnings"))
	}
	if len(r.Excepted) > 0 {
		counts = append(counts, fmt.Sprintf("%d excepted", len(r.Excepted)))
	}
	if len(counts) > 0 {
		line += " (" + strings.Join(counts, ", ") + ")"
	}
	t.line(line)
	if a := r.Approval; a != nil {
		t.line("approval: " + ApprovalText(*a))
	}
	t.findings(&r, nil)
	return t.flush()
}

// ApprovalText is the approval rules' decision as `policy eval` shows it: "2 approvals
// incl. @acme/platform — prod, destroys 1", "1 approval (may lower min_approvals) — tags
// only". How many the gate then needs depends on the configuration (docs/approval-policies.md).
func ApprovalText(a policy.Approval) string {
	text := english.Plural(a.Required, "approval", "approvals")
	if a.Lower {
		text += " (may lower min_approvals)"
	}
	if len(a.Teams) > 0 {
		text += " incl. @" + strings.Join(a.Teams, ", @")
	}
	if len(a.Reasons) > 0 {
		text += " — " + strings.Join(a.Reasons, ", ")
	}
	return text
}

// PolicyJSON writes one policy result as a JSONPolicy, the shape the plan report uses.
func PolicyJSON(w io.Writer, r policy.Result) error {
	return writeJSON(w, jsonPolicy(&r))
}

// policySummary is the short verdict shown beside a project: "pass", "2 warnings",
// "DENIED" or "ERROR".
func policySummary(r policy.Result) string {
	switch r.Verdict {
	case policy.VerdictDeny:
		return "DENIED"
	case policy.VerdictError:
		return "ERROR"
	case policy.VerdictWarn:
		return english.Plural(r.Count(policy.LevelWarn), "warning", "warnings")
	default:
		return "pass"
	}
}

// policyCell is the summary table's policies column for one project: the plain text (for
// alignment) and its painted form. A planned project without a result says so rather than
// looking like a pass.
func (t *textWriter) policyCell(p report.Project) (plainText, painted string) {
	const label = "policies: "
	switch {
	case p.Policy != nil:
		s := policySummary(*p.Policy)
		return label + s, label + t.pal.paint(verdictColour(p.Policy.Verdict), s)
	case p.Status == report.StatusPlanned && p.Changes != nil:
		return label + "not evaluated", label + t.pal.paint(ansiYellow, "not evaluated")
	}
	return "", ""
}

func verdictColour(v policy.Verdict) string {
	switch v {
	case policy.VerdictDeny, policy.VerdictError:
		return ansiRed
	case policy.VerdictWarn:
		return ansiYellow
	}
	return ansiGreen
}

// policySource writes, under the summary table, where the policies came from, the notes
// about them (for example that this change edits policies, which only apply after merge)
// and the notes about the run.
func (t *textWriter) policySource(r report.Run) {
	if r.Policies == "" && len(r.PolicyNotes) == 0 && len(r.Notes) == 0 {
		return
	}
	t.line("")
	if r.Policies != "" {
		t.wrapped("Policies: "+clean(r.Policies), "", "", "")
	}
	for _, n := range append(r.PolicyNotes[:len(r.PolicyNotes):len(r.PolicyNotes)], r.Notes...) {
		t.wrapped(clean(n), t.pal.paint(ansiYellow, "Note:")+" ", "      ", "")
	}
}

// hasFindings reports whether a project's policy result has anything to list in its section.
func hasFindings(r *policy.Result) bool {
	return r != nil && (len(r.Findings) > 0 || r.Err != nil || len(r.Excepted) > 0)
}

// findings lists a project's policy findings (denies first, as the engine sorts them), the
// evaluation error and the rules an exception silenced. Every string in a result comes
// from a policy or the plan it read, so all of it is escaped.
func (t *textWriter) findings(r *policy.Result, c *plan.Changes) {
	if !hasFindings(r) {
		return
	}
	if c != nil && (len(c.Outputs) > 0 || len(c.Drift) > 0) {
		// Right after resources the marks speak for themselves (as in UX.md); after the
		// outputs or drift lists they would read as part of those.
		t.line("  " + t.pal.paint(ansiDim, "Policies:"))
	}
	for _, f := range r.Findings {
		mark, code := "⚠ warn", ansiYellow
		if f.Level == policy.LevelDeny {
			mark, code = "✗ deny", ansiRed
		}
		head := "  " + t.pal.paint(code, mark) + "  "
		t.message(head, t.pal.paint(ansiBold, clean(f.Policy()))+": ", f.Text())
	}
	if r.Err != nil {
		// The engine joins one error per failing rule: each gets its own line.
		errs := []error{r.Err}
		if j, ok := r.Err.(interface{ Unwrap() []error }); ok {
			errs = j.Unwrap()
		}
		for _, err := range errs {
			t.message("  "+t.pal.paint(ansiRed, "✗ error")+" ", "", err.Error())
		}
		t.wrapped("(a policy that cannot be evaluated blocks like a deny)", findingIndent, findingIndent, ansiDim)
	}
	if len(r.Excepted) > 0 {
		names := make([]string, len(r.Excepted))
		for i, x := range r.Excepted {
			names[i] = clean(x)
		}
		t.wrapped("excepted by an exception rule: "+strings.Join(names, ", "), "  ", "    ", ansiDim)
	}
}

// message writes head+label+text, wrapping text to the width with continuation lines in the
// message column. Lines of a multi-line text each start a new line there. head and label
// may hold colour codes; their plain width is that of findingIndent and label's text.
func (t *textWriter) message(head, label, text string) {
	lines := cleanLines(text)
	avail := max(minDetail, t.width-len(findingIndent))
	first := true
	for _, src := range lines {
		prefix := ""
		if first {
			prefix = label
		}
		for _, l := range wrapAfter(prefix, src, avail) {
			switch {
			case first:
				t.line(strings.TrimRight(head+l, " ")) // an empty message leaves no trailing space
				first = false
			case l == "":
				t.line("")
			default:
				t.line(findingIndent + l)
			}
		}
	}
}

// wrapAfter wraps text to n runes as if it followed prefix (which may hold colour codes and
// is counted by its visible width) and returns the lines with prefix on the first.
func wrapAfter(prefix, text string, n int) []string {
	w := runes(stripANSI(prefix))
	if w == 0 {
		return wrap(text, n)
	}
	lines := wrap(strings.Repeat("x", w)+text, n)
	lines[0] = prefix + lines[0][w:]
	return lines
}

// wrapped writes s (escaped already) wrapped to the width, with first and rest as the line
// prefixes (first may be painted; both are as wide as rest is long), each line painted
// with code when it is not "".
func (t *textWriter) wrapped(s, first, rest, code string) {
	for i, l := range wrap(s, max(minDetail, t.width-len(rest))) {
		if code != "" {
			l = t.pal.paint(code, l)
		}
		if i == 0 {
			t.line(first + l)
		} else {
			t.line(rest + l)
		}
	}
}

// stripANSI removes the colour codes palette.paint adds (and nothing else: the text
// around them has already been escaped by clean).
func stripANSI(s string) string {
	if !strings.Contains(s, "\x1b[") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "\x1b[")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		j := strings.IndexByte(s[i:], 'm')
		if j < 0 {
			return b.String()
		}
		s = s[i+j+1:]
	}
}
