package render

import (
	"fmt"
	"strings"

	"github.com/tfgate/tfgate/internal/english"
	"github.com/tfgate/tfgate/internal/plan"
	"github.com/tfgate/tfgate/internal/policy"
	"github.com/tfgate/tfgate/internal/report"
)

// mdSection is what the comment splitter keeps together when it can: the header, or one
// project. cont is the heading that starts a part continuing it ("" for the header).
type mdSection struct {
	name, cont string
	blocks     []mdBlock
}

// mdBlock is a markdown block of items (lines, or list items and resources that may span
// lines: the splitter keeps an item whole when it can). A
// container — table, alert, <details> with a code block — has open and close lines;
// split between two parts, the first piece ends with close and the next starts with
// reopen, so each part is well-formed markdown by itself.
type mdBlock struct {
	open, reopen, close []string
	lines               []string
	code                bool // lines are inside a code fence: no markdown in them
}

func (s *mdSection) prose(lines ...string) {
	s.blocks = append(s.blocks, mdBlock{lines: lines})
}

func (b mdBlock) text() string {
	var sb strings.Builder
	for _, l := range b.open {
		sb.WriteString(l + "\n")
	}
	for _, l := range b.lines {
		sb.WriteString(l + "\n")
	}
	for _, l := range b.close {
		sb.WriteString(l + "\n")
	}
	return sb.String()
}

func (s mdSection) text() string {
	var sb strings.Builder
	for _, b := range s.blocks {
		sb.WriteString(b.text())
		sb.WriteString("\n")
	}
	return sb.String()
}

// mdProject is one project's section; ok is false when there is nothing to say beyond
// its row in the table (planned, no changes, no findings).
func mdProject(r report.Run, p report.Project) (mdSection, bool) {
	if r.Kind == report.KindDrift {
		return mdDriftProject(p)
	}
	label := mdCode(projectLabel(p))
	// The continuation heading repeats in every part the project spans: keep it short.
	s := mdSection{name: projectLabel(p), cont: "### " + mdCode(fit(projectLabel(p), 200)) + " (continued)"}
	failed := !p.Status.Succeeded() || p.Changes == nil
	if !failed && !hasContent(p.Changes) && !hasFindings(p.Policy) && p.Gate == nil && p.Apply == nil && !hasCostDetails(p) {
		return s, false
	}
	icon := "✅"
	switch {
	case failed:
		icon = statusIcon(p.Status)
	case p.Policy != nil && p.Policy.Denied():
		icon = "❌"
	case p.Policy != nil && p.Policy.Verdict == policy.VerdictWarn,
		p.Changes.Summary.Destroy+p.Changes.Summary.Replace+p.Changes.Summary.Drift > 0:
		icon = "⚠️"
	}
	what := ""
	switch {
	case failed:
		what = statusWord(p.Status)
	case p.Changes.Summary.HasChanges():
		what = strings.Join(nonZeroPhrases(p.Changes.Summary), ", ")
	default:
		what = "no changes"
	}
	s.prose("### " + icon + " " + label + " — " + what)
	if failed {
		msg := p.Error
		if msg == "" {
			msg = "no plan was produced"
		}
		s.blocks = append(s.blocks, mdCodeBlock("", "text", cleanLines(msg)))
	}
	mdGate(&s, p)
	mdFindings(&s, p.Policy)
	mdCost(&s, p)
	if !failed {
		if d := driftSentence(p.Changes.Summary); d != "" && r.Kind != report.KindDrift {
			s.prose(strings.TrimSpace(d) + " Applying this plan does not revert that unless the configuration changes it too.")
		}
		mdChanges(&s, p.Changes)
	}
	return s, true
}

// nonZeroPhrases is phrases without the zero counts, for a project's heading.
func nonZeroPhrases(s plan.Summary) []string {
	var out []string
	for _, ph := range phrases(s) {
		if !strings.HasPrefix(ph, "0 ") {
			out = append(out, ph)
		}
	}
	return out
}

func mdGate(s *mdSection, p report.Project) {
	if g := p.Gate; g != nil {
		line := "**Gate:** ✅ allowed"
		if !g.Allowed {
			line = "**Gate:** ⏳ not allowed"
		}
		if approvers := g.Approvers(); len(approvers) > 0 {
			names := make([]string, len(approvers))
			for i, a := range approvers {
				names[i] = mdText("@" + a) // shown as @login, but never a ping
			}
			line += " · approved by " + strings.Join(names, ", ")
		}
		s.prose(line)
		for _, r := range g.Reasons {
			s.prose("- " + mdLines(r.Text, "  "))
		}
	}
	if a := p.Apply; a != nil {
		line := "**Applied:** " + shortCounts(a.Summary)
		if a.PlanSHA256 != "" {
			line += " · plan sha256 " + mdCode(a.PlanSHA256)
		}
		s.prose(line)
	}
}

// mdFindings lists denies first (as the engine sorts them), then warnings, the evaluation
// error and the rules an exception silenced, as a list.
func mdFindings(s *mdSection, r *policy.Result) {
	if r != nil && r.Approval != nil {
		// Escaped: the reasons are a policy's text (and the teams are not mentioned).
		s.prose("👥 **Approval policy:** " + mdText(ApprovalText(*r.Approval)))
	}
	if !hasFindings(r) {
		return
	}
	b := mdBlock{}
	for _, f := range r.Findings {
		lead := "- ⚠️ **Warning** from "
		if f.Level == policy.LevelDeny {
			lead = "- ❌ **Denied** by "
		}
		b.lines = append(b.lines, lead+mdCode(f.Policy())+": "+mdLines(f.Text(), "  "))
	}
	if r.Err != nil {
		errs := []error{r.Err}
		if j, ok := r.Err.(interface{ Unwrap() []error }); ok {
			errs = j.Unwrap()
		}
		for _, err := range errs {
			b.lines = append(b.lines, "- ❌ **Policy error:** "+mdLines(err.Error(), "  ")+"\\\n  (a policy that cannot be evaluated blocks like a deny)")
		}
	}
	if len(r.Excepted) > 0 {
		names := make([]string, len(r.Excepted))
		for i, x := range r.Excepted {
			names[i] = mdCode(x)
		}
		b.lines = append(b.lines, "- Excepted by an exception rule: "+strings.Join(names, ", "))
	}
	s.blocks = append(s.blocks, b)
}

// mdChanges adds a plan's warnings and its collapsible diffs: the changes, then what
// changed outside Terraform.
func mdChanges(s *mdSection, c *plan.Changes) {
	if len(c.Warnings) > 0 {
		b := mdAlert("WARNING")
		for _, w := range c.Warnings {
			b.lines = append(b.lines, "> - "+mdLines(w, ">   "))
		}
		s.blocks = append(s.blocks, b)
	}
	if len(c.Resources) > 0 || len(c.Outputs) > 0 {
		var lines []string
		for _, r := range c.Resources {
			lines = append(lines, strings.Join(diffResource(r, false), "\n"))
		}
		if len(c.Outputs) > 0 {
			if len(lines) > 0 {
				lines = append(lines, "")
			}
			lines = append(lines, "Outputs:")
			for _, o := range c.Outputs {
				sym, _ := actionSymbol(o.Action)
				a := plan.Attribute{Before: o.Before, After: o.After}
				lines = append(lines, fmt.Sprintf("%s %s: %s", sym, codeLine(o.Name), attrValue(a, o.Action == plan.ActionCreate)))
			}
		}
		n := english.Plural(len(c.Resources), "resource", "resources")
		if len(c.Outputs) > 0 {
			n += ", " + english.Plural(len(c.Outputs), "output", "outputs")
		}
		s.blocks = append(s.blocks, mdCodeBlock("Changes ("+n+")", "diff", lines))
	}
	if len(c.Drift) > 0 {
		var lines []string
		for _, r := range c.Drift {
			lines = append(lines, strings.Join(diffResource(r, true), "\n"))
		}
		s.blocks = append(s.blocks, mdCodeBlock("Changed outside Terraform ("+english.Plural(len(c.Drift), "resource", "resources")+")", "diff", lines))
	}
}

// mdCodeBlock is a fenced block of lines, inside a collapsed <details> when summary is
// not "". summary is tfgate's own text: it is raw HTML, where no escape applies.
func mdCodeBlock(summary, lang string, lines []string) mdBlock {
	for i, l := range lines {
		lines[i] = noComment(l) // also where lines were cleaned only, or joined
	}
	fence := codeFence(lines)
	b := mdBlock{lines: lines, code: true, open: []string{fence + lang}, reopen: []string{fence + lang}, close: []string{fence}}
	if summary != "" {
		b.open = []string{"<details><summary>" + summary + "</summary>", "", fence + lang}
		b.reopen = []string{"<details><summary>" + summary + ", continued</summary>", "", fence + lang}
		b.close = []string{fence, "", "</details>"}
	}
	return b
}

// diffResource is one resource in diff style: its symbol, address and notes, then its
// changed attributes indented below.
func diffResource(r plan.Resource, drift bool) []string {
	sym, _ := symbol(r, drift)
	head := sym + " " + codeLine(r.Address)
	if r.Deposed != "" {
		head += " (deposed " + codeLine(r.Deposed) + ")"
	}
	if ns := notes(r, drift); len(ns) > 0 {
		for i := range ns {
			ns[i] = codeLine(ns[i])
		}
		head += "  # " + strings.Join(ns, "; ")
	}
	out := []string{head}
	create := r.Action == plan.ActionCreate && !drift
	for _, a := range r.Attributes {
		line := "     "
		if create {
			line = "+    " // GitHub colours the whole new object as added
		}
		if a.Path != "" {
			line += codeLine(a.Path) + ": "
		}
		line += attrValue(a, create)
		if a.ForcesReplacement {
			line += "  # forces replacement"
		}
		out = append(out, line)
	}
	return out
}

// attrValue is "before → after", or the new value alone for a created object. Values are
// redacted already ((sensitive), (masked), (known after apply)).
func attrValue(a plan.Attribute, create bool) string {
	if create {
		return codeLine(a.After.Text)
	}
	return codeLine(a.Before.Text) + " → " + codeLine(a.After.Text)
}
