package render

import (
	"fmt"
	"strings"

	"github.com/tfgate/tfgate/internal/english"
	"github.com/tfgate/tfgate/internal/git"
	"github.com/tfgate/tfgate/internal/report"
)

// reviewText is Text for a gate or apply run: which pull request and commits, one row per
// project with its outcome, who approved, why each project that was not applied (or
// allowed) was not, and the verdict.
func (t *textWriter) reviewText(r report.Run) {
	t.reviewHeader(r)
	if len(r.Projects) > 0 {
		t.line("")
		t.reviewTable(r)
	}
	t.sharedApprovals(r)
	t.policySource(r)
	for _, p := range r.Projects {
		t.reviewProject(r, p)
	}
	t.line("")
	if r.Kind == report.KindGate {
		t.gateClosing(r)
		return
	}
	totals := "no projects."
	if len(r.Projects) > 0 {
		totals = strings.Join(outcomeCounts(r, false), ", ") + "."
	}
	if r.DryRun {
		t.closing("Apply (dry run):", totals+" Nothing was applied.")
		return
	}
	t.closing("Apply:", totals)
}

// reviewHeader: "Pull request #42 · reviewed a1b2c3d · merged as 9f8e7d6" (apply) or
// "Pull request #42 · head a1b2c3d" (gate).
func (t *textWriter) reviewHeader(r report.Run) {
	var items []string
	if r.PR > 0 {
		items = append(items, fmt.Sprintf("Pull request #%d", r.PR))
	}
	if r.Reviewed != "" {
		items = append(items, pick(r.Kind == report.KindGate, "head ", "reviewed ")+clean(git.ShortSHA(r.Reviewed)))
	}
	if r.Kind == report.KindApply && r.Commit != "" {
		items = append(items, "merged as "+clean(git.ShortSHA(r.Commit)))
	}
	if len(items) == 0 {
		items = append(items, english.Plural(len(r.Projects), "project", "projects"))
	}
	items[0] = capitalise(items[0])
	line := strings.Join(items, " · ")
	if r.Kind == report.KindApply && r.DryRun {
		line += " · " + t.pal.paint(ansiYellow, "dry run: nothing was applied")
	}
	t.line(line)
}

// reviewTable is one row per project: mark, name, outcome, the plan's counts, and how long
// the apply took.
func (t *textWriter) reviewTable(r report.Run) {
	type row struct {
		o                  outcome
		name, word, counts string
		plainCounts, dur   string
	}
	rows := make([]row, len(r.Projects))
	nameW, wordW, countsW := 0, 0, 0
	for i, p := range r.Projects {
		o := outcomeOf(r, p)
		rw := row{o: o, name: projectLabel(p), word: o.word(p)}
		if s, ok := summaryOf(p); ok {
			rw.plainCounts, rw.counts = t.counts(s)
		}
		if o == outApplied && p.Duration > 0 {
			rw.dur = duration(p.Duration)
		}
		nameW = max(nameW, runes(rw.name))
		wordW = max(wordW, runes(rw.word))
		countsW = max(countsW, runes(rw.plainCounts))
		rows[i] = rw
	}
	nameW = min(nameW, max(20, t.width/2))
	for _, rw := range rows {
		sym, colour := rw.o.symbol()
		line := "  " + t.pal.paint(colour, sym) + " " + t.pal.paint(ansiBold, rw.name) + strings.Repeat(" ", max(0, nameW-runes(rw.name))) +
			"  " + t.pal.paint(colour, rw.word)
		if rw.counts != "" || rw.dur != "" {
			line += strings.Repeat(" ", wordW-runes(rw.word)) + "  " + rw.counts
		}
		if rw.dur != "" {
			line += strings.Repeat(" ", countsW-runes(rw.plainCounts)) + "  " + t.pal.paint(ansiDim, rw.dur)
		}
		t.line(strings.TrimRight(line, " "))
	}
}

// approvalText is "approved by @bob, @carol; policy deny overridden by @alice", or "".
func approvalText(g *report.Gate) string {
	if g == nil {
		return ""
	}
	var parts []string
	if names := atNames(g.Approvers(), clean); names != "" {
		parts = append(parts, "approved by "+names)
	}
	if names := atNames(g.PolicyOverriddenBy, clean); names != "" {
		parts = append(parts, "policy deny overridden by "+names)
	}
	return strings.Join(parts, "; ")
}

// atNames writes logins as "@bob, @carol", each escaped by esc.
func atNames(logins []string, esc func(string) string) string {
	names := make([]string, 0, len(logins))
	for _, l := range logins {
		names = append(names, esc("@"+l))
	}
	return strings.Join(names, ", ")
}

// sharedApprovals says once who approved the projects that were applied (or allowed), when
// the same reviews counted for all of them — the usual case — and else project by project.
// The others say it under their reasons.
func (t *textWriter) sharedApprovals(r report.Run) {
	var ok []report.Project
	for _, p := range r.Projects {
		if outcomeOf(r, p).ok() && approvalText(p.Gate) != "" {
			ok = append(ok, p)
		}
	}
	if len(ok) == 0 {
		return
	}
	t.line("")
	same := true
	for _, p := range r.Projects {
		if outcomeOf(r, p).ok() && approvalText(p.Gate) != approvalText(ok[0].Gate) {
			same = false
		}
	}
	if same {
		t.wrapped(capitalise(approvalText(ok[0].Gate))+".", "", "  ", "")
		return
	}
	for _, p := range ok {
		t.wrapped(approvalText(p.Gate), t.pal.paint(ansiBold, projectLabel(p))+": ", "    ", "")
	}
}

// reviewProject says why a project was not applied (or allowed): each gate reason, its
// error line by line, and whose approvals did count.
func (t *textWriter) reviewProject(r report.Run, p report.Project) {
	o := outcomeOf(r, p)
	if o.ok() {
		return
	}
	_, colour := o.symbol()
	t.line("")
	t.line(t.pal.paint(ansiBold, projectLabel(p)) + "  " + t.pal.paint(colour, o.word(p)))
	gate, errText := reasons(p)
	for _, why := range gate {
		for _, l := range cleanLines(why) {
			t.wrapped(l, "    ", "      ", "")
		}
	}
	if errText != "" {
		for _, l := range cleanLines(errText) {
			if strings.TrimSpace(l) == "" {
				t.line("")
				continue
			}
			t.line("    " + l)
		}
	}
	if len(gate) == 0 && errText == "" {
		t.line("    " + t.pal.paint(ansiDim, "(no reason was given)"))
	}
	if a := approvalText(p.Gate); a != "" {
		t.wrapped(a, "    ", "      ", ansiDim)
	}
}

// gateClosing: "Gate: allowed — 2 approvals on a1b2c3d; policies pass", the verdict's
// word in its colour.
func (t *textWriter) gateClosing(r report.Run) {
	v := verdictOf(r)
	word := stateWord(v.State)
	colour := map[report.GateState]string{report.GateAllowed: ansiGreen, report.GatePending: ansiYellow}[v.State]
	if colour == "" {
		colour = ansiRed
	}
	text := "Gate: " + word
	if d := clean(v.Description); d != "" {
		text += " — " + d
	}
	for i, l := range wrap(text, t.width) {
		if i == 0 && strings.HasPrefix(l, "Gate: "+word) {
			l = t.pal.paint(ansiBold, "Gate:") + " " + t.pal.paint(colour, word) + strings.TrimPrefix(l, "Gate: "+word)
		}
		t.line(l)
	}
}
