package render

import (
	"fmt"
	"math"
	"strings"

	"github.com/tfgate/tfgate/internal/english"
	"github.com/tfgate/tfgate/internal/git"
	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/report"
)

// The apply comment is the audit record of a merge: what was applied, from which verified
// plan, approved by whom, and why anything was not. It is one comment, never split: over
// the limit it keeps the verdict and as many table rows as fit, and says how many it left
// out and where they are.

// Caps on the text one project may put in the apply comment and the job summary (the CI
// log and `tfgate apply --format json` have it all).
const (
	maxReasons     = 10
	maxReasonRunes = 1000
	maxErrorLines  = 30
	maxErrorLine   = 300 // bytes
	maxCellRunes   = 200
	maxApprovers   = 10
)

// ApplyComment is an apply run's comment (r.Kind is report.KindApply) on the merged pull request (UX.md, "After merge:
// the apply comment"), marker first, within opts.Limit (GitHub's github.MaxCommentChars by
// default; a limit under 4 KiB cannot always hold the verdict and the notes).
func ApplyComment(r report.Run, opts MarkdownOptions) string {
	return fitApply(r, opts, opts.limit(github.MaxCommentChars), true, "the job summary / audit log")
}

// applyDoc is the apply comment in pieces, so that it can be fitted to a limit: the
// verdict (always shown), the table (rows cut at the limit, counted), the notes, a
// section per project that was not applied, and the verified plans' hashes.
type applyDoc struct {
	lead     []mdBlock
	table    *mdBlock
	tail     []mdBlock
	projects []mdSection
	verified *mdSection
}

func applyDocument(r report.Run) applyDoc {
	var d applyDoc
	items := []string{}
	if r.DryRun {
		items = append(items, "dry run")
	}
	if r.Commit != "" {
		items = append(items, "merged as "+mdCode(git.ShortSHA(r.Commit)))
	}
	if len(r.Projects) == 0 {
		items = append(items, "no projects")
	}
	items = append(items, outcomeCounts(r, true)...)
	d.lead = append(d.lead, mdBlock{lines: []string{"## " + kindTitle(r.Kind) + " — " + strings.Join(items, " · ")}})
	if r.DryRun {
		d.lead = append(d.lead, mdBlock{lines: []string{"**Dry run:** every plan below was verified against the merge commit; nothing was applied."}})
	}
	if r.Verdict != nil {
		d.lead = append(d.lead, mdBlock{lines: []string{GateLine(r)}})
	}
	if len(r.Projects) > 0 {
		head, sep := "| project | result | plan sha256 | approved by |", "|---|---|---|---|"
		t := mdBlock{open: []string{head, sep}, reopen: []string{head, sep}}
		for _, p := range r.Projects {
			t.lines = append(t.lines, "| "+mdCellCode(fit(projectLabel(p), maxCellRunes))+" | "+applyResultCell(r, p)+" | "+hashCell(p)+" | "+approversCell(p.Gate)+" |")
		}
		d.table = &t
	}
	d.tail = mdRunNotes(r)
	for _, p := range r.Projects {
		if !outcomeOf(r, p).ok() {
			d.projects = append(d.projects, reviewSection(r, p))
		}
	}
	d.verified = verifiedSection(r)
	return d
}

// sections is the document for the generic markdown path (mdDocument), for any caller of
// it that does not go through fitApply.
func (d applyDoc) sections() []mdSection {
	head := mdSection{blocks: append([]mdBlock{}, d.lead...)}
	if d.table != nil {
		head.blocks = append(head.blocks, *d.table)
	}
	head.blocks = append(head.blocks, d.tail...)
	out := append([]mdSection{head}, d.projects...)
	if d.verified != nil {
		out = append(out, *d.verified)
	}
	return out
}

// fitApply lays the apply document out within limit: the marker (when asked), the
// verdict, the table rows that fit, then the notes, the projects' sections and the hashes
// while they fit, each left-out piece counted in a note naming where to find it.
func fitApply(r report.Run, opts MarkdownOptions, limit int, marker bool, where string) string {
	d := applyDocument(r)
	head := ""
	if marker {
		if m := opts.marker(1, 1); m != "" {
			head = m + "\n"
		}
	}
	foot := footerFor(r, opts)
	const noteRoom = 1024 // the notes about what was left out
	budget := limit - cost(head) - cost(foot) - noteRoom
	var b strings.Builder
	b.WriteString(head)
	size := 0
	add := func(s string) {
		b.WriteString(s)
		size += cost(s)
	}
	fits := func(s string) bool { return size+cost(s) <= budget }
	for _, bl := range d.lead {
		add(bl.text() + "\n") // the verdict, whatever it costs (it is short)
	}
	if d.table != nil {
		if whole := d.table.text() + "\n"; fits(whole) {
			add(whole)
		} else {
			add(lines(d.table.open))
			shown := 0
			for _, l := range d.table.lines {
				if !fits(l + "\n") {
					break
				}
				add(l + "\n")
				shown++
			}
			add(fmt.Sprintf("| … and %s (see %s) | | | |\n\n", english.Plural(len(d.table.lines)-shown, "more project", "more projects"), where))
		}
	}
	for _, bl := range d.tail {
		s := bl.text() + "\n"
		if !fits(s) {
			add(fmt.Sprintf("*The policies' source and the notes about this run are not shown here (see %s).*\n\n", where))
			break
		}
		add(s)
	}
	omitted := 0
	for _, sec := range d.projects {
		if s := sec.text(); omitted == 0 && fits(s) {
			add(s)
		} else {
			omitted++
		}
	}
	if omitted > 0 {
		add(fmt.Sprintf("*… and why %s %s not applied: not shown here (see %s).*\n\n",
			english.Plural(omitted, "more project", "more projects"), english.Agree(omitted, "was", "were"), where))
	}
	if d.verified != nil {
		if s := d.verified.text(); fits(s) {
			add(s)
		} else {
			add(fmt.Sprintf("*The verified plans' hashes are not shown here (see %s).*\n\n", where))
		}
	}
	b.WriteString(foot)
	return b.String()
}

// applyResultCell: "✅ applied (+2 ~1) in 4.2s", "⏭ refused: <first reason>".
func applyResultCell(r report.Run, p report.Project) string {
	o := outcomeOf(r, p)
	cell := o.icon(r.Kind) + " " + mdText(o.word(p))
	if o.ok() {
		if s, ok := summaryOf(p); ok {
			cell += " (" + shortCounts(s) + ")"
		}
		if o == outApplied && p.Duration > 0 {
			cell += " in " + duration(p.Duration)
		}
		return cell
	}
	if why := firstReason(p); why != "" {
		cell += ": " + mdText(fit(why, maxCellRunes))
	}
	return cell
}

// hashCell is the plan's sha256 abbreviated, `5e1f…90ab`, or "—" when no bundle was
// verified.
func hashCell(p report.Project) string {
	if p.Apply == nil || p.Apply.PlanSHA256 == "" {
		return "—"
	}
	h := p.Apply.PlanSHA256
	if isHex(h) {
		return "`" + abbrevHash(h) + "`" // hex: no backtick or pipe to escape
	}
	return mdCellCode(abbrevHash(h))
}

// approversCell is "@bob, @carol" — shown as logins, never a mention that pings — and who
// overrode a policy deny, or "—".
func approversCell(g *report.Gate) string {
	if g == nil {
		return "—"
	}
	var parts []string
	if a := mdLogins(g.Approvers()); a != "" {
		parts = append(parts, a)
	}
	if o := mdLogins(g.PolicyOverriddenBy); o != "" {
		parts = append(parts, "policy deny overridden by "+o)
	}
	if len(parts) == 0 {
		return "—"
	}
	return strings.Join(parts, " · ")
}

// mdLogins escapes logins as "@bob, @carol" for markdown prose (mdText breaks the mention).
func mdLogins(logins []string) string {
	names := make([]string, len(logins))
	for i, l := range logins {
		names[i] = mdText("@" + fit(l, 60))
	}
	return english.ClipList(names, maxApprovers)
}

// reviewSection is a project that was not applied (or allowed): every gate reason, its
// error (capped, in a code block) and whose approvals counted.
func reviewSection(r report.Run, p report.Project) mdSection {
	o := outcomeOf(r, p)
	label := fit(projectLabel(p), maxCellRunes)
	s := mdSection{name: projectLabel(p), cont: "### " + mdCode(label) + " (continued)"}
	s.prose("### " + o.icon(r.Kind) + " " + mdCode(label) + " — " + mdText(o.word(p)))
	gate, errText := reasons(p)
	if len(gate) > 0 {
		b := mdBlock{}
		for i, why := range gate {
			if i == maxReasons {
				b.lines = append(b.lines, fmt.Sprintf("- … and %d more (see the CI run's log)", len(gate)-maxReasons))
				break
			}
			b.lines = append(b.lines, "- "+mdLines(fit(why, maxReasonRunes), "  "))
		}
		s.blocks = append(s.blocks, b)
	}
	if errText != "" {
		ls := strings.Split(strings.ReplaceAll(errText, "\r\n", "\n"), "\n")
		for i, l := range ls {
			ls[i] = codeLine(cutBytes(l, maxErrorLine))
		}
		s.blocks = append(s.blocks, mdCodeBlock("", "text", capLines(ls, maxErrorLines)))
	}
	if len(gate) == 0 && errText == "" {
		s.prose("No reason was given.")
	}
	if g := p.Gate; g != nil && (len(g.Approvals) > 0 || len(g.PolicyOverriddenBy) > 0) {
		line := ""
		if a := mdLogins(g.Approvers()); a != "" {
			line = "Approved by " + a + "."
		}
		if o := mdLogins(g.PolicyOverriddenBy); o != "" {
			line = strings.TrimSpace(line + " Policy deny overridden by " + o + ".")
		}
		s.prose(line)
	}
	return s
}

// verifiedSection lists the verified bundles in full — plan sha256, input hash, terraform
// version — collapsed: the audit trail's detail, one click away.
func verifiedSection(r report.Run) *mdSection {
	var ps []report.Project
	nameW := 0
	for _, p := range r.Projects {
		if p.Apply != nil {
			ps = append(ps, p)
			nameW = max(nameW, runes(fit(projectLabel(p), 100)))
		}
	}
	if len(ps) == 0 {
		return nil
	}
	var ls []string
	for _, p := range ps {
		a := p.Apply
		l := pad(fit(projectLabel(p), 100), nameW)
		if a.PlanSHA256 != "" {
			l += "  plan sha256 " + codeLine(cutBytes(a.PlanSHA256, 128))
		}
		if a.InputHash != "" {
			l += "  inputs " + codeLine(cutBytes(a.InputHash, 128))
		}
		if a.TerraformVersion != "" {
			l += "  terraform " + codeLine(cutBytes(a.TerraformVersion, 64))
		}
		ls = append(ls, strings.TrimRight(l, " "))
	}
	s := mdSection{name: "verified plans"}
	s.blocks = append(s.blocks, mdCodeBlock(fmt.Sprintf("Verified plans (%d)", len(ps)), "text", ls))
	return &s
}

// mdRunNotes are where the policies came from and the notes about them and the run.
func mdRunNotes(r report.Run) []mdBlock {
	var out []mdBlock
	if r.Policies != "" {
		out = append(out, mdBlock{lines: []string{"**Policies:** " + mdText(fit(r.Policies, maxReasonRunes))}})
	}
	if b, ok := mdNotes(append(r.PolicyNotes[:len(r.PolicyNotes):len(r.PolicyNotes)], r.Notes...)); ok {
		out = append(out, b)
	}
	return out
}

// mdNotes is the run's notes as a NOTE alert.
func mdNotes(notes []string) (mdBlock, bool) {
	if len(notes) == 0 {
		return mdBlock{}, false
	}
	b := mdAlert("NOTE")
	for i, n := range notes {
		if i == maxReasons {
			b.lines = append(b.lines, fmt.Sprintf("> - … and %d more (see the CI run's log)", len(notes)-maxReasons))
			break
		}
		b.lines = append(b.lines, "> - "+mdLines(fit(n, maxReasonRunes), ">   "))
	}
	return b, true
}

// footerFor is the footer of a run's markdown: mdFooter's commit, run and version — for an
// apply the merge commit, for a gate the head — and for gate and apply runs a second line
// with the reviewed commit and the pull request.
func footerFor(r report.Run, opts MarkdownOptions) string {
	if !isReview(r.Kind) {
		return mdFooter(opts)
	}
	var items []string
	switch {
	case r.Kind == report.KindApply:
		if r.Commit != "" {
			opts.Commit = r.Commit
		}
		if r.Reviewed != "" {
			items = append(items, "Reviewed commit "+mdCode(git.ShortSHA(r.Reviewed)))
		}
	case opts.Commit == "":
		opts.Commit = r.Reviewed
	}
	if r.PR > 0 {
		items = append(items, mdText(fmt.Sprintf("pull request #%d", r.PR)))
	}
	f := mdFooter(opts)
	switch {
	case len(items) == 0:
		return f
	case f == "":
		return "---\n" + strings.Join(items, " · ") + "\n"
	}
	return strings.TrimSuffix(f, "\n") + "\\\n" + strings.Join(items, " · ") + "\n"
}

// unlimited is a limit no document reaches.
const unlimited = math.MaxInt / 4
