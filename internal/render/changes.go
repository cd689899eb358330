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
	var details []string
	for _, n := range notes(r, drift) {
		details = append(details, wrap(clean(n), avail)...)
	}
	create := r.Action == plan.ActionCreate && !drift
	for _, a := range r.Attributes {
		details = append(details, t.attribute(a, create, avail)...)
	}
	addr := clean(r.Address)
	if r.Deposed != "" {
		addr += " (deposed " + clean(r.Deposed) + ")"
	}
	t.entry(sym, code, addr, details, col)
}

func (t *textWriter) output(o plan.Output, col int) {
	sym, code := actionSymbol(o.Action)
	avail := t.detailWidth(col)
	a := plan.Attribute{Before: o.Before, After: o.After}
	t.entry(sym, code, clean(o.Name), t.attribute(a, o.Action == plan.ActionCreate, avail), col)
}

// entry writes the symbol and address, the first detail beside them and the others below,
// aligned. An address too long for the column gets its details on the following lines.
// Details arrive already fitted to the width (and may hold colour codes).
func (t *textWriter) entry(sym, code, addr string, details []string, col int) {
	prefix := strings.Repeat(" ", 3-runes(sym)) + t.pal.paint(code, sym) + " "
	indent := strings.Repeat(" ", symbolIndent+col+2)
	first := 0
	if len(details) > 0 && runes(addr) <= col {
		t.line(prefix + pad(addr, col) + "  " + details[0])
		first = 1
	} else {
		t.line(prefix + addr)
	}
	for _, d := range details[first:] {
		t.line(indent + d)
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
func (t *textWriter) attribute(a plan.Attribute, create bool, avail int) []string {
	path := clean(a.Path)
	before, after := clean(a.Before.Text), clean(a.After.Text)
	label := path + ": "
	indent := "  "
	if path == "" {
		label, indent = "", ""
	}
	if create {
		switch {
		case runes(label)+runes(after) <= avail:
			return []string{label + after}
		case t.terminal && label == "":
			return []string{fit(after, avail)}
		case t.terminal:
			return []string{path + ":", "  " + fit(after, avail-2)}
		}
		lines := prefixed(indent, indent, chunk(after, avail-len(indent)))
		if label != "" {
			lines = append([]string{path + ":"}, lines...)
		}
		return lines
	}
	pair := before + " → " + after
	switch {
	case runes(label)+runes(pair) <= avail:
		return []string{label + pair}
	case runes(pair) <= avail-2:
		return []string{path + ":", "  " + pair}
	}
	n := avail - len(indent) - 2
	known := a.Before.Kind == plan.KindKnown && a.After.Kind == plan.KindKnown
	if t.terminal && known && (runes(before) > n || runes(after) > n) {
		before, after = plan.Excerpt(before, after, focusContext)
	}
	var lines []string
	if label != "" {
		lines = append(lines, path+":")
	}
	lines = append(lines, prefixed(indent+t.pal.paint(ansiRed, "-")+" ", indent+"  ", chunk(before, n))...)
	return append(lines, prefixed(indent+t.pal.paint(ansiGreen, "+")+" ", indent+"  ", chunk(after, n))...)
}

// prefixed puts first before the first line and rest before the others.
func prefixed(first, rest string, lines []string) []string {
	for i := range lines {
		if i == 0 {
			lines[i] = first + lines[i]
		} else {
			lines[i] = rest + lines[i]
		}
	}
	return lines
}

// chunk breaks a value into lines of at most n runes, after a space when there is one in
// the second half of the line, else anywhere: joined again, the lines are the value.
func chunk(s string, n int) []string {
	n = max(n, 8)
	if runes(s) <= n {
		return []string{s}
	}
	var out []string
	r := []rune(s)
	for len(r) > n {
		cut := n
		for i := n; i > n/2; i-- {
			if r[i-1] == ' ' {
				cut = i
				break
			}
		}
		out = append(out, string(r[:cut]))
		r = r[cut:]
	}
	return append(out, string(r))
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
