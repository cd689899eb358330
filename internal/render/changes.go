package render

import (
	"strconv"
	"strings"

	"github.com/tfgate/tfgate/internal/plan"
)

// Layout of a change line:
//
//	"  ± module.svc.terraform_data.svc   replaced: input forces replacement"
//	"  <= data.aws_ami.ubuntu            will be read during apply"
//	  ^ symbol, right-aligned in 2 columns; address column; details, continued below
const (
	symbolIndent = 4 // " " + 2-wide symbol + " "
	minAddrCol   = 24
	minDetail    = 24 // below this a detail would be unreadable: let the line run long
)

func (t *textWriter) changes(c *plan.Changes) {
	col := t.addrColumn(c)
	for _, w := range c.Warnings {
		for i, l := range wrap(clean(w), t.width-4) {
			if i == 0 {
				t.line("  " + t.pal.paint(ansiYellow, "⚠ "+l))
			} else {
				t.line("    " + t.pal.paint(ansiYellow, l))
			}
		}
	}
	for _, r := range c.Resources {
		t.resource(r, col, false)
	}
	if len(c.Outputs) > 0 {
		t.line("  " + t.pal.paint(ansiDim, "Outputs:"))
		for _, o := range c.Outputs {
			t.output(o, col)
		}
	}
	if len(c.Drift) > 0 {
		t.line("  " + t.pal.paint(ansiDim, "Changed outside Terraform:"))
		for _, r := range c.Drift {
			t.resource(r, col, true)
		}
	}
}

// addrColumn is the width of the address column: the longest address within a cap (longer
// ones get their details on the next line instead of pushing every detail right).
func (t *textWriter) addrColumn(c *plan.Changes) int {
	limit := max(minAddrCol, t.width*2/5)
	w := 0
	see := func(s string) {
		if n := runes(s); n <= limit {
			w = max(w, n)
		}
	}
	for _, r := range c.Resources {
		see(r.Address)
	}
	for _, r := range c.Drift {
		see(r.Address)
	}
	for _, o := range c.Outputs {
		see(o.Name)
	}
	return w
}

func (t *textWriter) detailWidth(col int) int {
	return max(minDetail, t.width-symbolIndent-col-2)
}

func (t *textWriter) resource(r plan.Resource, col int, drift bool) {
	sym, code := symbol(r, drift)
	avail := t.detailWidth(col)
	details := t.details[:0]
	for _, n := range notes(r, drift) {
		for _, l := range wrap(clean(n), avail) {
			details = append(details, detail{l})
		}
	}
	create := r.Action == plan.ActionCreate && !drift
	for _, a := range r.Attributes {
		details = t.attribute(details, a, create, avail)
	}
	addr := clean(r.Address)
	if r.Deposed != "" {
		addr += " (deposed " + clean(r.Deposed) + ")"
	}
	t.entry(sym, code, addr, details, col)
	t.details = details
}

func (t *textWriter) output(o plan.Output, col int) {
	sym, code := actionSymbol(o.Action)
	avail := t.detailWidth(col)
	a := plan.Attribute{Before: o.Before, After: o.After}
	t.entry(sym, code, clean(o.Name), t.attribute(nil, a, o.Action == plan.ActionCreate, avail), col)
}

// entry writes the symbol and address, the first detail beside them and the others below,
// aligned. An address too long for the column gets its details on the following lines.
// Details arrive already fitted to the width (and may hold colour codes).
func (t *textWriter) entry(sym, code, addr string, details []detail, col int) {
	t.spaces(3 - runes(sym))
	t.bw.WriteString(t.pal.paint(code, sym))
	t.bw.WriteByte(' ')
	first := 0
	if n := runes(addr); len(details) > 0 && n <= col {
		t.bw.WriteString(addr)
		t.spaces(col - n + 2)
		t.detail(details[0])
		first = 1
	} else {
		t.line(addr)
	}
	for _, d := range details[first:] {
		t.spaces(symbolIndent + col + 2)
		t.detail(d)
	}
}

// notes are the sentences that explain a resource's action before its attributes, as raw
// text: each output format escapes them its own way.
func notes(r plan.Resource, drift bool) []string {
	var out []string
	add := func(s string) { out = append(out, s) }
	withReason := func(s string) string {
		if r.Reason != "" {
			return s + " (" + r.Reason + ")"
		}
		return s
	}
	switch {
	case drift && r.Action == plan.ActionDelete:
		add("deleted outside Terraform")
	case drift:
	case r.Action == plan.ActionDelete && r.Deposed != "":
		add(withReason("deposed object will be destroyed"))
	case r.Action == plan.ActionDelete:
		add(withReason("will be destroyed"))
	case r.Action == plan.ActionReplace:
		what := "replaced"
		if r.CreateBeforeDestroy {
			what = "replaced, new first"
		}
		switch {
		case len(r.ReplacePaths) > 0:
			verb := " forces replacement"
			if len(r.ReplacePaths) > 1 {
				verb = " force replacement"
			}
			add(what + ": " + strings.Join(r.ReplacePaths, ", ") + verb)
		case r.Reason != "":
			add(what + ": " + r.Reason)
		default:
			add(what)
		}
	case r.Action == plan.ActionRead:
		add(withReason("will be read during apply"))
	case r.Action == plan.ActionForget:
		add(withReason("will be removed from state, not destroyed"))
	case r.Action == plan.ActionCreate && len(r.Attributes) == 0:
		add(withReason("will be created"))
	case r.Action == plan.ActionCreate && r.Reason != "":
		add(r.Reason)
	case r.Action == plan.ActionUpdate && len(r.Attributes) == 0 && r.PreviousAddress == "" && !r.Importing:
		add("will be updated in place")
	case r.Action != plan.ActionUpdate && r.Action != plan.ActionCreate && r.Action != plan.ActionNoop:
		add("action " + string(r.Action))
	}
	if r.PreviousAddress != "" {
		add("moved from " + r.PreviousAddress)
	}
	if r.Importing {
		s := "will be imported"
		if r.ImportID != "" {
			s += " (id " + strconv.Quote(r.ImportID) + ")"
		}
		add(s)
	}
	return out
}

// focusContext is how much shared text a terminal keeps around each difference of two
// values too long for a line.
const focusContext = 12

// attribute renders `path: before → after` (or `path: value` for a new object) on one line
// when it fits; otherwise the path goes on its own line and the values below it, side by
// side or, when even that is too wide, one per line. Every difference stays visible: on a
// terminal two known values are shortened to the regions where they differ (plan.Excerpt)
// and wrapped if still too long; elsewhere (CI logs, files) they are wrapped whole. Only a
// new object's value is cut to the line on a terminal. Which attributes force a replacement
// is said once, in the resource's first note, not on every attribute.
func (t *textWriter) attribute(dst []detail, a plan.Attribute, create bool, avail int) []detail {
	path := clean(a.Path)
	before, after := clean(a.Before.Text), clean(a.After.Text)
	labelW, indent := runes(path)+2, "  "
	if path == "" {
		labelW, indent = 0, ""
	}
	if create {
		switch {
		case labelW+runes(after) <= avail:
			return append(dst, labelled(path, ": ", after))
		case t.terminal && path == "":
			return append(dst, detail{fit(after, avail)})
		case t.terminal:
			return append(dst, detail{path, ":"}, detail{"  ", fit(after, avail-2)})
		}
		if path != "" {
			dst = append(dst, detail{path, ":"})
		}
		return appendChunks(dst, indent, indent, after, avail-len(indent))
	}
	pairW := runes(before) + runes(" → ") + runes(after)
	switch {
	case labelW+pairW <= avail:
		if path == "" {
			return append(dst, detail{before, " → ", after})
		}
		return append(dst, detail{path, ": ", before, " → ", after})
	case pairW <= avail-2:
		return append(dst, detail{path, ":"}, detail{"  ", before, " → ", after})
	}
	n := avail - len(indent) - 2
	known := a.Before.Kind == plan.KindKnown && a.After.Kind == plan.KindKnown
	if t.terminal && known && (runes(before) > n || runes(after) > n) {
		before, after = plan.Excerpt(before, after, focusContext)
	}
	if path != "" {
		dst = append(dst, detail{path, ":"})
	}
	dst = appendChunks(dst, indent+t.pal.paint(ansiRed, "-")+" ", indent+"  ", before, n)
	return appendChunks(dst, indent+t.pal.paint(ansiGreen, "+")+" ", indent+"  ", after, n)
}

// labelled is path, sep and value as one line, or value alone when there is no path.
func labelled(path, sep, value string) detail {
	if path == "" {
		return detail{value}
	}
	return detail{path, sep, value}
}

func symbol(r plan.Resource, drift bool) (string, string) {
	if drift {
		if r.Action == plan.ActionDelete {
			return "-", ansiRed
		}
		return "~", ansiYellow
	}
	if r.Action == plan.ActionNoop {
		if r.Importing {
			return "⇐", ansiCyan
		}
		return "→", ansiBlue
	}
	return actionSymbol(r.Action)
}

func actionSymbol(a plan.Action) (string, string) {
	switch a {
	case plan.ActionCreate:
		return "+", ansiGreen
	case plan.ActionUpdate:
		return "~", ansiYellow
	case plan.ActionDelete:
		return "-", ansiRed
	case plan.ActionReplace:
		return "±", ansiMagenta
	case plan.ActionRead:
		return "<=", ansiCyan
	case plan.ActionForget:
		return "⊘", ansiBlue
	case plan.ActionNoop:
		return " ", ""
	}
	return "?", ansiYellow
}
