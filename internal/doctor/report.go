package doctor

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Symbol is the finding's mark: ✓ holds, ✗ breaks the setup (an essential check failed or
// could not be made), ! a problem that does not.
func (f Finding) Symbol() string {
	switch {
	case f.Status == OK:
		return "✓"
	case f.Status == Skipped:
		return "-"
	case f.Essential:
		return "✗"
	}
	return "!"
}

// WriteText writes one line per finding (continuation lines indented), its fix below it,
// and a summary line.
func (r Report) WriteText(w io.Writer) error {
	var b strings.Builder
	failed := 0
	for _, f := range r.Findings {
		if !f.Holds() {
			failed++
		}
		msg := strings.ReplaceAll(strings.TrimRight(f.Message, "\n"), "\n", "\n    ")
		fmt.Fprintf(&b, "%s %s: %s\n", f.Symbol(), f.Check, msg)
		if f.Fix != "" && f.Status != OK && f.Status != Skipped {
			fmt.Fprintf(&b, "    fix: %s\n", f.Fix)
		}
	}
	switch {
	case failed == 0 && r.skipped() != "":
		fmt.Fprintf(&b, "\nEvery local check holds; not checked on GitHub: %s (run doctor with a token to check them).\n", r.skipped())
	case failed == 0:
		b.WriteString("\nEverything essential holds.\n")
	default:
		s := "s"
		if failed == 1 {
			s = ""
		}
		fmt.Fprintf(&b, "\n%d essential check%s did not pass (✗): the setup does not hold.\n", failed, s)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// skipped names the checks not made (Skipped), "" when every check was made.
func (r Report) skipped() string {
	var names []string
	for _, f := range r.Findings {
		if f.Status == Skipped {
			names = append(names, f.Check)
		}
	}
	return strings.Join(names, ", ")
}

// WriteJSON writes {"ok": …, "findings": [...]}.
func (r Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(struct {
		OK       bool      `json:"ok"`
		Findings []Finding `json:"findings"`
	}{r.OK(), r.Findings})
}
