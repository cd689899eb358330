package render

import (
	"fmt"
	"strings"

	"github.com/tfgate/tfgate/internal/english"
	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/plan"
	"github.com/tfgate/tfgate/internal/report"
)

// A gate or apply run judges (and applies) the reviewed plans of a pull request. Its
// projects end in outcomes, not in counts to approve: applied (allowed in a gate run,
// would apply in a dry run), pending approval, refused, failed, interrupted, not started.
// This file is what the text, markdown and status renderers of those runs share.

type outcome int

const (
	outApplied outcome = iota
	outWouldApply
	outAllowed
	outPending
	outRefused
	outFailed
	outInterrupted
	outNotStarted
	outOther // a status gate and apply runs do not give; shown by its name
)

// outcomes in the order a reader counts them.
var outcomes = []outcome{outApplied, outWouldApply, outAllowed, outPending, outRefused, outFailed, outInterrupted, outNotStarted}

func isReview(k report.Kind) bool { return k == report.KindGate || k == report.KindApply }

func outcomeOf(r report.Run, p report.Project) outcome {
	switch p.Status {
	case report.StatusApplied:
		return outApplied
	case report.StatusAllowed:
		if r.Kind == report.KindApply && r.DryRun {
			return outWouldApply
		}
		return outAllowed
	case report.StatusRefused:
		// Before merge a refusal that more reviews can lift is pending; after merge it is
		// a refusal like any other.
		if r.Kind == report.KindGate && p.Gate != nil && p.Gate.Pending {
			return outPending
		}
		return outRefused
	case report.StatusFailed:
		return outFailed
	case report.StatusInterrupted:
		return outInterrupted
	case report.StatusNotStarted:
		return outNotStarted
	}
	return outOther
}

// ok: the project went the way it should (applied, or allowed).
func (o outcome) ok() bool { return o == outApplied || o == outWouldApply || o == outAllowed }

func (o outcome) word(p report.Project) string {
	switch o {
	case outApplied:
		if p.Apply != nil && p.Apply.Already != "" {
			return "already applied"
		}
		return "applied"
	case outWouldApply:
		return "would apply"
	case outAllowed:
		return "allowed"
	case outPending:
		return "pending"
	case outRefused:
		return "refused"
	case outFailed:
		return "failed"
	case outInterrupted:
		return "interrupted"
	case outNotStarted:
		return "not started"
	}
	return clean(fit(statusWord(p.Status), 40))
}

// icon is the outcome's emoji in markdown. A refusal after merge skips the project (⏭, as
// UX.md shows); before merge it is the gate failing (❌).
func (o outcome) icon(k report.Kind) string {
	switch o {
	case outApplied, outWouldApply, outAllowed:
		return "✅"
	case outPending:
		return "⏳"
	case outRefused:
		return pick(k == report.KindGate, "❌", "⏭")
	case outFailed:
		return "❌"
	case outInterrupted:
		return "💥"
	case outNotStarted:
		return "⏭"
	}
	return "❔"
}

// symbol is the outcome's mark on a terminal (one column wide, unlike emoji) and its colour.
func (o outcome) symbol() (string, string) {
	switch o {
	case outApplied, outWouldApply, outAllowed:
		return "✓", ansiGreen
	case outPending:
		return "○", ansiYellow
	case outRefused:
		return "⊘", ansiYellow
	case outFailed, outInterrupted:
		return "✗", ansiRed
	case outNotStarted:
		return "·", ansiDim
	}
	return "?", ansiDim
}

// outcomeCounts are "2 applied", "1 refused", … for every outcome that occurs, in order.
func outcomeCounts(r report.Run, withIcon bool) []string {
	n := map[outcome]int{}
	other := map[report.Status]int{}
	var others []report.Status
	for _, p := range r.Projects {
		o := outcomeOf(r, p)
		n[o]++
		if o == outOther {
			if other[p.Status] == 0 {
				others = append(others, p.Status)
			}
			other[p.Status]++
		}
	}
	var out []string
	for _, o := range outcomes {
		if n[o] > 0 {
			s := fmt.Sprintf("%d %s", n[o], o.word(report.Project{}))
			if withIcon {
				s = o.icon(r.Kind) + " " + s
			}
			out = append(out, s)
		}
	}
	// Statuses these runs do not give are named (shortened), three at most.
	rest := 0
	for i, st := range others {
		if i >= 3 {
			rest += other[st]
			continue
		}
		s := fmt.Sprintf("%d %s", other[st], fit(statusWord(st), 40))
		if withIcon {
			s = "❔ " + mdText(s)
		} else {
			s = clean(s)
		}
		out = append(out, s)
	}
	if rest > 0 {
		out = append(out, pick(withIcon, "❔ ", "")+fmt.Sprintf("%d other", rest))
	}
	return out
}

// summaryOf is what the project's plan changes: the verified bundle's summary, else the
// plan's own.
func summaryOf(p report.Project) (plan.Summary, bool) {
	switch {
	case p.Apply != nil:
		return p.Apply.Summary, true
	case p.Changes != nil:
		return p.Changes.Summary, true
	}
	return plan.Summary{}, false
}

// reasons are why a project was not applied (or allowed): the gate's reasons, then its
// error, unescaped.
func reasons(p report.Project) (gate []string, errText string) {
	if p.Gate != nil {
		for _, r := range p.Gate.Reasons {
			if strings.TrimSpace(r.Text) != "" {
				gate = append(gate, r.Text)
			}
		}
	}
	return gate, strings.TrimSpace(p.Error)
}

// firstReason is the one line that says why: the first gate reason, else the error's
// first non-empty line, unescaped.
func firstReason(p report.Project) string {
	gate, errText := reasons(p)
	if len(gate) > 0 {
		return firstLine(gate[0])
	}
	return firstLine(errText)
}

func firstLine(s string) string {
	for _, l := range strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}

// abbrevHash is a long hash as "5e1f…90ab": enough to compare with the audit log by eye.
// Unescaped.
func abbrevHash(s string) string {
	rs := []rune(s)
	if len(rs) <= 12 {
		return s
	}
	return string(rs[:4]) + "…" + string(rs[len(rs)-4:])
}

func isHex(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// verdictOf is the run's verdict, or (when the pipeline gave none) one derived from the
// projects' outcomes. Its description is unescaped.
func verdictOf(r report.Run) report.Verdict {
	if r.Verdict != nil {
		v := *r.Verdict
		if strings.TrimSpace(v.Description) == "" {
			v.Description = derivedVerdict(r).Description
		}
		return v
	}
	return derivedVerdict(r)
}

func derivedVerdict(r report.Run) report.Verdict {
	var bad, pending []report.Project
	for _, p := range r.Projects {
		switch o := outcomeOf(r, p); {
		case o == outPending:
			pending = append(pending, p)
		case !o.ok():
			bad = append(bad, p)
		}
	}
	describe := func(ps []report.Project, word string) string {
		if len(ps) == 1 {
			d := projectLabel(ps[0]) + " " + word
			if why := firstReason(ps[0]); why != "" {
				d += ": " + why
			}
			return d
		}
		return english.Plural(len(ps), "project", "projects") + " " + word
	}
	switch {
	case len(r.Projects) == 0:
		return report.Verdict{State: report.GateAllowed, Description: "no projects to apply"}
	case len(bad) > 0:
		return report.Verdict{State: report.GateBlocked, Description: describe(bad, outcomeOf(r, bad[0]).word(bad[0]))}
	case len(pending) > 0:
		return report.Verdict{State: report.GatePending, Description: describe(pending, "pending")}
	}
	return report.Verdict{State: report.GateAllowed, Description: english.Plural(len(r.Projects), "project", "projects") + " allowed"}
}

// reviewStatusDescription is StatusDescription for gate and apply runs.
func reviewStatusDescription(r report.Run) string {
	if r.Kind == report.KindGate {
		return fit(clean(verdictOf(r).Description), github.MaxStatusDescription)
	}
	lead := pick(r.DryRun, "dry run: ", "")
	if len(r.Projects) == 0 {
		return lead + "no projects to apply"
	}
	var first *report.Project
	all := true
	for i, p := range r.Projects {
		if o := outcomeOf(r, p); !o.ok() {
			all = false
			if first == nil {
				first = &r.Projects[i]
			}
		}
	}
	if all && r.Count(report.StatusApplied) == len(r.Projects) {
		if alreadyApplied(r) {
			return lead + "already applied (by an earlier run): " + english.Plural(len(r.Projects), "project", "projects")
		}
		return lead + "applied " + english.Plural(len(r.Projects), "project", "projects")
	}
	if all && r.DryRun && r.Count(report.StatusAllowed) == len(r.Projects) {
		return lead + "would apply " + english.Plural(len(r.Projects), "project", "projects")
	}
	s := fit(lead+strings.Join(outcomeCounts(r, false), ", "), github.MaxStatusDescription)
	if first == nil {
		return s
	}
	// The first project that was not applied, and why: the reader of a red status wants
	// the name before opening the run.
	room := github.MaxStatusDescription - runes(s) - len(" ()")
	if room < 16 {
		return s
	}
	name, why := projectLabel(*first), clean(firstReason(*first))
	if why == "" {
		return s + " (" + fit(name, room) + ")"
	}
	// A long name leaves half the room to the reason.
	name = fit(name, max(room/2, room-runes(why)-2))
	return s + " (" + fit(name+": "+why, room) + ")"
}

// alreadyApplied: an earlier run had applied every project of the run.
func alreadyApplied(r report.Run) bool {
	for _, p := range r.Projects {
		if p.Apply == nil || p.Apply.Already == "" {
			return false
		}
	}
	return len(r.Projects) > 0
}
