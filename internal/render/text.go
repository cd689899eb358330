package render

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/tfgate/tfgate/internal/english"
	"github.com/tfgate/tfgate/internal/plan"
	"github.com/tfgate/tfgate/internal/report"
)

// Text writes the terminal report: a summary table, the changes of each project, failures,
// and one closing line with the totals (the mock-up in UX.md, "Laptop: tfgate plan").
func Text(w io.Writer, r report.Run, opts TextOptions) error {
	t := newTextWriter(w, opts)
	switch r.Kind {
	case report.KindDrift:
		t.driftText(r)
		return t.flush()
	case report.KindGate, report.KindApply:
		t.reviewText(r)
		return t.flush()
	}
	t.header(r)
	if len(r.Projects) > 0 {
		t.line("")
		t.table(r)
	}
	t.policySource(r)
	for _, p := range r.Projects {
		t.project(p)
	}
	t.line("")
	t.closing(closingLabel(r.Kind), t.reportTotals(r))
	return t.flush()
}

// PlanText writes the changes of a single plan (`tfgate render PLAN_JSON`).
func PlanText(w io.Writer, c *plan.Changes, opts TextOptions) error {
	t := newTextWriter(w, opts)
	if c == nil {
		c = &plan.Changes{}
	}
	if hasContent(c) {
		t.changes(c)
		t.line("")
	}
	if c.Summary.HasChanges() {
		t.closing(closingLabel(report.KindPlan), strings.Join(phrases(c.Summary), ", ")+"."+driftSentence(c.Summary))
	} else {
		t.line("No changes." + driftSentence(c.Summary))
	}
	return t.flush()
}

type textWriter struct {
	bw    *bufio.Writer
	pal   palette
	width int
	// terminal: the reader sees a screen of width columns, so long values are shortened
	// around their differences; otherwise (a log, a file) they are wrapped whole.
	terminal bool
	details  []detail // room for one resource's detail lines, kept between resources
}

func newTextWriter(w io.Writer, opts TextOptions) *textWriter {
	return &textWriter{bw: bufio.NewWriterSize(w, 64<<10), pal: palette(opts.Color), width: opts.width(), terminal: opts.Width > 0}
}

func (t *textWriter) line(s string) {
	t.bw.WriteString(s)
	t.bw.WriteByte('\n')
}

func (t *textWriter) flush() error {
	if err := t.bw.Flush(); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

// closing writes the closing line ("Plan: …"), wrapped to the width; a denial is red when
// it fits on one line (it nearly always does).
func (t *textWriter) closing(label, totals string) {
	for i, l := range wrap(label+" "+totals, t.width) {
		if i == 0 {
			l = t.pal.paint(ansiBold, label) + strings.TrimPrefix(l, label)
		}
		if j := strings.Index(l, " denied by policy."); j >= 0 {
			k := strings.LastIndexByte(l[:j], ' ') + 1
			l = l[:k] + t.pal.paint(ansiRed, l[k:j+len(" denied by policy.")]) + l[j+len(" denied by policy."):]
		}
		t.line(l)
	}
}

func (t *textWriter) header(r report.Run) {
	n := english.Plural(len(r.Projects), "project", "projects")
	switch {
	case len(r.Projects) == 0 && r.Base != "" && r.MergeBase != "":
		t.line(fmt.Sprintf("No projects changed since %s (merge base %s).", clean(r.Base), clean(r.MergeBase)))
	case len(r.Projects) == 0 && r.Base != "":
		t.line(fmt.Sprintf("No projects changed since %s.", clean(r.Base)))
	case r.Base != "" && r.MergeBase != "":
		t.line(fmt.Sprintf("Changed since %s (merge base %s): %s", clean(r.Base), clean(r.MergeBase), n))
	case r.Base != "":
		t.line(fmt.Sprintf("Changed since %s: %s", clean(r.Base), n))
	default:
		t.line(capitalise(n))
	}
}

// table is the first screen: one row per project with its counts, policy verdict (when
// policies are configured) and status.
func (t *textWriter) table(r report.Run) {
	type row struct{ name, counts, countsPlain, policy, policyPlain, cost, status string }
	rows := make([]row, len(r.Projects))
	nameW, countsW, policyW, costW := 0, 0, 0, 0
	for i, p := range r.Projects {
		rw := row{name: projectLabel(p)}
		if r.Policies != "" {
			rw.policyPlain, rw.policy = t.policyCell(p)
		}
		if r.Cost != "" {
			rw.cost = textCostCell(p)
		}
		switch {
		case !p.Status.Succeeded() || p.Changes == nil:
			rw.status = t.pal.paint(statusColour(p.Status), statusWord(p.Status))
		default:
			rw.countsPlain, rw.counts = t.counts(p.Changes.Summary)
			rw.status = "planned"
			if !p.Changes.Summary.HasChanges() {
				rw.status = t.pal.paint(ansiDim, "no changes")
			}
			if d := p.Changes.Summary.Drift; d > 0 {
				rw.status += fmt.Sprintf(", %d changed outside Terraform", d)
			}
			if p.ReusedFrom != "" {
				rw.status += ", " + ReusedNote(p.ReusedFrom)
			}
		}
		nameW = max(nameW, runes(rw.name))
		countsW = max(countsW, runes(rw.countsPlain))
		policyW = max(policyW, runes(rw.policyPlain))
		costW = max(costW, runes(rw.cost))
		rows[i] = rw
	}
	nameW = min(nameW, max(20, t.width/2))
	for _, rw := range rows {
		line := t.pal.paint(ansiBold, rw.name) + strings.Repeat(" ", max(0, nameW-runes(rw.name)))
		if countsW > 0 {
			line += "  " + rw.counts + strings.Repeat(" ", countsW-runes(rw.countsPlain))
		}
		if policyW > 0 {
			line += "  " + rw.policy + strings.Repeat(" ", policyW-runes(rw.policyPlain))
		}
		if costW > 0 {
			line += "  " + rw.cost + strings.Repeat(" ", costW-runes(rw.cost))
		}
		t.line(line + "  " + rw.status)
	}
}

// counts renders `+2 ~1 -0 ±1 …`; the three basic counts always, the rest when non-zero.
func (t *textWriter) counts(s plan.Summary) (plainText, painted string) {
	type tok struct {
		sym  string
		n    int
		code string
		opt  bool
	}
	toks := []tok{
		{"+", s.Add, ansiGreen, false}, {"~", s.Change, ansiYellow, false}, {"-", s.Destroy, ansiRed, false},
		{"±", s.Replace, ansiMagenta, true}, {"⇐", s.Import, ansiCyan, true}, {"→", s.Move, ansiBlue, true},
		{"<=", s.Read, ansiCyan, true}, {"⊘", s.Forget, ansiBlue, true}, {"!", s.Actions, ansiYellow, true},
	}
	var plain, col []string
	for _, k := range toks {
		if k.opt && k.n == 0 {
			continue
		}
		s := fmt.Sprintf("%s%d", k.sym, k.n)
		plain = append(plain, s)
		if k.n == 0 {
			col = append(col, t.pal.paint(ansiDim, s))
		} else {
			col = append(col, t.pal.paint(k.code, s))
		}
	}
	return strings.Join(plain, " "), strings.Join(col, " ")
}

func (t *textWriter) project(p report.Project) {
	if !p.Status.Succeeded() || p.Changes == nil {
		msg := p.Error
		if msg == "" {
			msg = "no plan was produced"
		}
		lines := cleanLines(msg)
		code := statusColour(p.Status)
		t.line("")
		t.line(t.pal.paint(code, "✗") + " " + t.pal.paint(ansiBold, projectLabel(p)) + "  " + t.pal.paint(code, statusWord(p.Status)+":") + " " + lines[0])
		for _, l := range lines[1:] {
			if strings.TrimSpace(l) == "" {
				t.line("")
				continue
			}
			t.line("    " + l)
		}
		t.findings(p.Policy, nil)
		return
	}
	if !hasContent(p.Changes) && !hasFindings(p.Policy) {
		return
	}
	t.line("")
	t.line(t.pal.paint(ansiBold, projectLabel(p)))
	t.changes(p.Changes)
	t.findings(p.Policy, p.Changes)
}

func (t *textWriter) reportTotals(r report.Run) string {
	s := r.Totals()
	unfinished := len(r.Unfinished())
	out := english.Plural(len(r.Projects), "project", "projects")
	switch {
	case len(r.Projects) > 0 && unfinished == len(r.Projects):
	case s.HasChanges():
		out += ", " + strings.Join(phrases(s), ", ")
	default:
		out += ", no changes"
	}
	out += "."
	if denied := r.Denied(); denied > 0 {
		out += fmt.Sprintf(" %d denied by policy.", denied)
	}
	for _, st := range []report.Status{report.StatusFailed, report.StatusInterrupted, report.StatusNotStarted} {
		if n := r.Count(st); n > 0 {
			out += fmt.Sprintf(" %d %s.", n, statusWord(st))
		}
	}
	return out + driftSentence(s)
}

// phrases lists the counts for the closing line: add/change/destroy always, the rest when
// non-zero.
func phrases(s plan.Summary) []string {
	out := []string{
		fmt.Sprintf("%d to add", s.Add), fmt.Sprintf("%d to change", s.Change), fmt.Sprintf("%d to destroy", s.Destroy),
	}
	for _, x := range []struct {
		n    int
		what string
	}{{s.Replace, "to replace"}, {s.Import, "to import"}, {s.Move, "to move"}, {s.Read, "to read"}, {s.Forget, "to forget"}} {
		if x.n > 0 {
			out = append(out, fmt.Sprintf("%d %s", x.n, x.what))
		}
	}
	if s.Actions > 0 {
		out = append(out, english.Plural(s.Actions, "action to invoke", "actions to invoke"))
	}
	if s.Outputs > 0 {
		out = append(out, english.Plural(s.Outputs, "output change", "output changes"))
	}
	return out
}

func driftSentence(s plan.Summary) string {
	if s.Drift == 0 {
		return ""
	}
	return fmt.Sprintf(" %s changed outside Terraform.", english.Plural(s.Drift, "resource", "resources"))
}

func hasContent(c *plan.Changes) bool {
	return len(c.Resources) > 0 || len(c.Outputs) > 0 || len(c.Drift) > 0 || len(c.Warnings) > 0
}

func projectLabel(p report.Project) string {
	name := p.Name
	if name == "" {
		name = p.Dir
	}
	if p.Workspace != "" && p.Workspace != "default" {
		name += " (workspace " + p.Workspace + ")"
	}
	return clean(name)
}

// closingLabel names the kind of run on its closing line ("Plan: 3 projects, …").
func closingLabel(k report.Kind) string {
	if k == "" {
		k = report.KindPlan
	}
	return capitalise(string(k)) + ":"
}

func capitalise(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
