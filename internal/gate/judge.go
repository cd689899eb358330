package gate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tfgate/tfgate/internal/report"
)

// A project's judgement from everything judged of it (Judge), and the run's status once
// the results are known: the gate's own verdict, overruled by refusals beyond it
// (Overrule), held to the results (Reconcile), or nothing to apply (NothingChanged).

// Reconcile is a gate run's status once every project's result is known: v, unless it
// allows while a project is not allowed (refused names the refused ones), which blocks.
// Overrule already refuses such a run; this holds the required check to the results
// whatever the path to them, so that no later change can publish success over a refusal.
func Reconcile(v report.Verdict, allAllowed bool, refused []string) report.Verdict {
	if v.State != report.GateAllowed || allAllowed {
		return v
	}
	return report.Verdict{State: report.GateBlocked, Description: "refused: " + strings.Join(refused, ", ")}
}

// NothingChanged is the verdict on a pull request whose head changes no project: it
// allows, with nothing to apply.
func NothingChanged(head string) report.Verdict {
	return report.Verdict{State: report.GateAllowed, Description: "no project changes on " + short(head) + ": nothing to apply"}
}

// Overrule is the status of a run whose projects are refused (or failed) beyond the
// gate's verdict v: a bundle that failed verification refuses even where the approvals
// are complete. It says nothing (overruled false) when v's own status stands: nothing was
// refused, or v already refuses as the run must (it blocks, or every refusal is pending
// on reviews). Else it is the first refused project with its first reason, and how many
// more were refused; pending when each of them is (pending: more reviews can lift it).
func Overrule(v Verdict, refused []Refusal, pending bool) (status report.Verdict, overruled bool) {
	if len(refused) == 0 || !v.Allowed && (v.blocks() || pending) {
		return report.Verdict{}, false
	}
	first := refused[0]
	desc := first.Name + ": "
	if len(first.Reasons) > 0 {
		desc += first.Reasons[0]
	}
	if len(refused) > 1 {
		desc += fmt.Sprintf(" (+%d more)", len(refused)-1)
	}
	state := report.GateBlocked
	if pending {
		state = report.GatePending
	}
	return report.Verdict{State: state, Description: desc}, true
}

// blocks reports whether a reason of v is one more reviews cannot lift.
func (v Verdict) blocks() bool {
	for _, p := range v.Projects {
		for _, r := range p.Reasons {
			if !r.Pending {
				return true
			}
		}
	}
	return false
}

// Judgement is the gate's answer for one project from everything judged of it.
type Judgement struct {
	Reasons []Reason // every reason it may not apply, each text once; none = it may
	// Pending: refused, and more reviews (or waiting: PlannedUnapplied) can lift every
	// reason (none that blocks was found of its bundle, plan file or merge).
	Pending bool
	// Approvers and PolicyOverriddenBy are its verdict's under the first rules.
	Approvers, PolicyOverriddenBy []string
}

// Judge is project name's judgement: the refusals found of its bundle, plan file and merge
// (problems, first), then the reasons of its verdict under each configuration the rules may
// come from (verdicts, the first the rules proper): the gate must hold under every one.
func Judge(name string, problems []Reason, verdicts []Verdict) Judgement {
	j := Judgement{Reasons: slices.Clone(problems)}
	pending := !slices.ContainsFunc(problems, func(r Reason) bool { return !r.Pending }) // (PlannedUnapplied's is pending)
	for k, v := range verdicts {
		for _, pv := range v.Projects {
			if pv.Name != name {
				continue
			}
			for _, r := range pv.Reasons {
				if !slices.ContainsFunc(j.Reasons, func(q Reason) bool { return q.Text == r.Text }) {
					j.Reasons = append(j.Reasons, r)
					pending = pending && r.Pending
				}
			}
			if k == 0 {
				j.Approvers, j.PolicyOverriddenBy = pv.Approvers, pv.PolicyOverriddenBy
			}
		}
	}
	j.Pending = pending && len(j.Reasons) > 0
	return j
}
