package policy

import (
	"cmp"
	"errors"
	"slices"
	"strings"

	"github.com/tfgate/tfgate/internal/secret"
)

// Level is how serious a finding is.
type Level string

const (
	// LevelDeny comes from rules named deny* or violation*: the plan must not be applied.
	LevelDeny Level = "deny"
	// LevelWarn comes from rules named warn*: shown to reviewers, never blocking.
	LevelWarn Level = "warn"
)

// Finding is one message produced by one policy rule.
type Finding struct {
	Level Level `json:"level"`
	// Rule is the rule's name, e.g. "deny_protected".
	Rule string `json:"rule"`
	// Package is the rule's package path, e.g. "data.tfgate.rules.protected_resources".
	Package string `json:"package"`
	Msg     string `json:"msg"`
	// Address is the resource address the rule named, from an object value's
	// "address" key; empty when the rule produced a plain string.
	Address string `json:"address,omitempty"`
	// Metadata holds the other keys of an object value.
	Metadata map[string]any `json:"metadata,omitempty"`
}

// Verdict summarises a project's findings.
type Verdict string

const (
	VerdictPass Verdict = "pass"
	VerdictWarn Verdict = "warn"
	VerdictDeny Verdict = "deny"
	// VerdictError means a policy could not be evaluated. It blocks like a
	// deny: a policy that cannot run must not let a plan through.
	VerdictError Verdict = "error"
)

// Result is the outcome of evaluating every policy against one plan.
type Result struct {
	Verdict  Verdict
	Findings []Finding
	// Excepted lists the rules (package.rule) silenced by a conftest-style
	// `exception` rule for this plan.
	Excepted []string
	// Err is set when at least one rule could not be evaluated; findings of
	// the rules that did evaluate are still reported.
	Err error
	// Approval is what the approval rules decided (approval.go); nil when none is
	// defined for this plan, or when one failed (Err says why).
	Approval *Approval
}

// Denied reports whether the plan must not be applied without an override:
// a deny finding or an evaluation error.
func (r Result) Denied() bool {
	return r.Verdict == VerdictDeny || r.Verdict == VerdictError
}

// Count returns how many findings have the given level.
func (r Result) Count(l Level) int {
	n := 0
	for _, f := range r.Findings {
		if f.Level == l {
			n++
		}
	}
	return n
}

// finish sorts findings (denies first, then by package, rule, address and
// message) so output is stable, and derives the verdict.
func (r *Result) finish() {
	slices.SortFunc(r.Findings, func(a, b Finding) int {
		return cmp.Or(
			cmp.Compare(levelRank(a.Level), levelRank(b.Level)),
			cmp.Compare(a.Package, b.Package),
			cmp.Compare(a.Rule, b.Rule),
			cmp.Compare(a.Address, b.Address),
			cmp.Compare(a.Msg, b.Msg),
		)
	})
	slices.Sort(r.Excepted)
	switch {
	case r.Err != nil:
		r.Verdict = VerdictError
	case r.Count(LevelDeny) > 0:
		r.Verdict = VerdictDeny
	case r.Count(LevelWarn) > 0:
		r.Verdict = VerdictWarn
	default:
		r.Verdict = VerdictPass
	}
	if r.Findings == nil {
		r.Findings = []Finding{}
	}
}

func levelRank(l Level) int {
	if l == LevelDeny {
		return 0
	}
	return 1
}

// Masked returns the result with every string (messages, addresses, metadata keys and
// values, the evaluation error) passed through m. Policies read the raw plan, sensitive
// values included, and a message may quote one ("password is …"): the result must be
// masked like the plan's own rendering before anyone sees it. r itself is not modified.
func (r Result) Masked(m *secret.Masker) Result {
	out := r
	out.Findings = make([]Finding, len(r.Findings))
	for i, f := range r.Findings {
		f.Msg = m.String(f.Msg)
		f.Address = m.String(f.Address)
		if f.Metadata != nil {
			f.Metadata = m.Value(f.Metadata).(map[string]any)
		}
		out.Findings[i] = f
	}
	if a := r.Approval; a != nil {
		c := *a
		c.Reasons = make([]string, len(a.Reasons))
		for i, reason := range a.Reasons {
			c.Reasons[i] = m.String(reason)
		}
		out.Approval = &c
	}
	if r.Err != nil {
		if masked := m.String(r.Err.Error()); masked != r.Err.Error() {
			out.Err = errors.New(masked)
		}
	}
	return out
}

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
