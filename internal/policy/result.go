package policy

import (
	"cmp"
	"slices"
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
// Its JSON form is documented on MarshalJSON.
type Result struct {
	Verdict  Verdict
	Findings []Finding
	// Excepted lists the rules (package.rule) silenced by a conftest-style
	// `exception` rule for this plan.
	Excepted []string
	// Err is set when at least one rule could not be evaluated; findings of
	// the rules that did evaluate are still reported.
	Err error
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
