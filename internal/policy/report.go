package policy

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"
)

// Policy names the policy a finding came from for people. The package is
// shown without "data.": in full ("acme.security.v2", "main"), or, for the
// library's packages under data.tfgate.rules, by the rest of the path
// ("protected_resources"). The rule follows unless it is a bare deny or
// warn, which only repeat the level shown beside the finding:
//
//	data.tfgate.rules.protected_resources deny  → protected_resources
//	data.acme.security.v2 warn                  → acme.security.v2
//	data.main deny_public_ingress               → main.deny_public_ingress
//	data.main violation                         → main.violation
//
// A bare violation keeps its name because it is shown as a deny.
func (f Finding) Policy() string {
	pkg := strings.TrimPrefix(f.Package, "data.")
	if rest, ok := strings.CutPrefix(pkg, "tfgate.rules."); ok && rest != "" {
		pkg = rest
	}
	if f.Rule == "deny" || f.Rule == "warn" {
		return pkg
	}
	return pkg + "." + f.Rule
}

// Text is the finding's message, preceded by its resource address when the
// message does not already name it: "aws_security_group.web: open to the world".
func (f Finding) Text() string {
	if f.Address != "" && !strings.Contains(f.Msg, f.Address) {
		return f.Address + ": " + f.Msg
	}
	return f.Msg
}

// Summary is the short verdict shown beside a project: "pass",
// "2 warnings", "DENIED" or "ERROR".
func (r Result) Summary() string {
	switch r.Verdict {
	case VerdictDeny:
		return "DENIED"
	case VerdictError:
		return "ERROR"
	case VerdictWarn:
		return plural(r.Count(LevelWarn), "warning")
	default:
		return "pass"
	}
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// WriteText writes a result for a terminal or log: a verdict line, then one
// line per finding (denies first) and the evaluation error, if any. A
// finding reads "policy: address: message", the address left out when the
// message already names it (as the plan report does). Multi-line messages
// are indented under their finding.
func WriteText(w io.Writer, r Result) error {
	var b strings.Builder
	fmt.Fprintf(&b, "policies: %s", r.Summary())
	var counts []string
	if n := r.Count(LevelDeny); n > 0 {
		counts = append(counts, fmt.Sprintf("%d denied", n))
	}
	if n := r.Count(LevelWarn); n > 0 && r.Verdict != VerdictWarn {
		counts = append(counts, plural(n, "warning"))
	}
	if len(r.Excepted) > 0 {
		counts = append(counts, fmt.Sprintf("%d excepted", len(r.Excepted)))
	}
	if len(counts) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(counts, ", "))
	}
	b.WriteByte('\n')
	const indent = "          "
	for _, f := range r.Findings {
		mark := "⚠ warn "
		if f.Level == LevelDeny {
			mark = "✗ deny "
		}
		fmt.Fprintf(&b, "  %s %s: %s\n", mark, clean(f.Policy()), strings.ReplaceAll(clean(f.Text()), "\n", "\n"+indent))
	}
	if r.Err != nil {
		b.WriteString("  ! error: policy evaluation failed, which counts as a deny:\n")
		for _, line := range strings.Split(r.Err.Error(), "\n") {
			fmt.Fprintf(&b, "%s%s\n", indent, clean(line))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// clean escapes control characters (newlines excepted): messages quote plan values, and
// an escape sequence in one must not drive the reader's terminal.
func clean(s string) string {
	return strings.Map(func(r rune) rune {
		if r != '\n' && (unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r)) {
			return '\uFFFD'
		}
		return r
	}, s)
}

// jsonResult is the stable JSON form of a Result.
type jsonResult struct {
	Verdict  Verdict       `json:"verdict"`
	Denied   bool          `json:"denied"`
	Counts   map[Level]int `json:"counts"`
	Findings []Finding     `json:"findings"`
	Excepted []string      `json:"excepted,omitempty"`
	Error    string        `json:"error,omitempty"`
}

// MarshalJSON gives Result its documented JSON form:
//
//	{"verdict": "pass|warn|deny|error", "denied": bool,
//	 "counts": {"deny": n, "warn": n},
//	 "findings": [{"level", "rule", "package", "msg", "address"?, "metadata"?}],
//	 "excepted": ["data.pkg.rule"]?, "error": "..."?}
func (r Result) MarshalJSON() ([]byte, error) {
	out := jsonResult{
		Verdict:  r.Verdict,
		Denied:   r.Denied(),
		Counts:   map[Level]int{LevelDeny: r.Count(LevelDeny), LevelWarn: r.Count(LevelWarn)},
		Findings: r.Findings,
		Excepted: r.Excepted,
	}
	if out.Findings == nil {
		out.Findings = []Finding{}
	}
	if r.Err != nil {
		out.Error = r.Err.Error()
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads the form MarshalJSON writes, so a result stored with
// a plan (e.g. for the approval gate) can be read back; the error comes back
// as its message.
func (r *Result) UnmarshalJSON(b []byte) error {
	var in jsonResult
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	*r = Result{Verdict: in.Verdict, Findings: in.Findings, Excepted: in.Excepted}
	if in.Error != "" {
		r.Err = errors.New(in.Error)
	}
	if r.Findings == nil {
		r.Findings = []Finding{}
	}
	return nil
}

// WriteJSON writes the result as indented JSON (see MarshalJSON).
func WriteJSON(w io.Writer, r Result) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}
