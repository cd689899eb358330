package gate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tfgate/tfgate/internal/english"
	"github.com/tfgate/tfgate/internal/plan"
)

// Reuse: whether a push to a pull request may reuse a project's plan of the pull request's
// previous head rather than plan it again (docs/busy-repositories.md). Only what is proven
// the same is: anything unknown plans again. The caller (plan) reads the facts; Reusable
// only judges them.

// ReuseFacts are one project's facts, as the earlier plan recorded them and as they stand
// now.
type ReuseFacts struct {
	PlannedHash, Hash string // the input hash (the project's files, its local modules, the shared files)
	// The terraform that planned, and the one this run has ("" when unknown).
	PlannedFlavor, PlannedVersion, RunFlavor, RunVersion string
	// The tfgate that planned, and this one: another may check or render a plan otherwise.
	PlannedTfgate, RunTfgate string
	// PlannedPolicies and Policies sum what the policies read beside the plan ("" = none
	// configured).
	PlannedPolicies, Policies string
	// PlannedEnv and Env sum the TF_VAR_* and TF_CLI_ARGS* terraform had, and has ("" =
	// not recorded).
	PlannedEnv, Env string
	// The merges of the default branch not yet applied that change the project, and why
	// that could not be told.
	PlannedUnapplied, Unapplied               []string
	PlannedUnappliedUnknown, UnappliedUnknown string
	// PlannedApplicable: the earlier bundle may be applied; Applicable: this run's would be.
	PlannedApplicable, Applicable bool
	// State: the state the plan was made against, and the state now; StateBackend names
	// the backend when the state now could not be read ("" = read).
	PlannedLineage, Lineage string
	PlannedSerial, Serial   int64
	StateBackend            string
	// Unpinned: the plan uses providers, but the project has no dependency lock file among
	// its inputs: a new provider release could plan otherwise.
	Unpinned bool
	// RemoteModules are module calls from outside the repository: not among the inputs.
	RemoteModules []string
	// The plan's counts as its bundle records them (sealed with the key, when there is
	// one), and as the earlier run's report (the comment reused) says them.
	PlanSummary, ReportSummary plan.Summary
}

// Reusable reports whether the earlier plan may be reused, and else why it is planned
// again (one clause, for the log and the run's notes).
func Reusable(f ReuseFacts) (bool, string) {
	switch {
	case f.PlanSummary != f.ReportSummary:
		return false, "the previous push's report does not match its plan"
	case f.PlannedHash == "" || f.PlannedHash != f.Hash:
		return false, "its inputs changed"
	case f.PlannedVersion == "" || f.PlannedVersion != f.RunVersion || f.PlannedFlavor != f.RunFlavor:
		return false, fmt.Sprintf("it was planned with %s %s, this run has %s %s", f.PlannedFlavor, f.PlannedVersion, f.RunFlavor, f.RunVersion)
	case f.PlannedTfgate == "" || f.PlannedTfgate != f.RunTfgate:
		return false, fmt.Sprintf("it was planned by tfgate %s, this is tfgate %s", f.PlannedTfgate, f.RunTfgate)
	case f.PlannedPolicies != f.Policies:
		return false, "what its policies read changed (the policies, or the files the change touches in it)"
	case f.PlannedEnv == "" || f.PlannedEnv != f.Env:
		return false, "the TF_VAR_* or TF_CLI_ARGS* terraform is given differ from those it was planned with (or were not recorded)"
	case !slices.Equal(f.PlannedUnapplied, f.Unapplied) || f.PlannedUnappliedUnknown != "" || f.UnappliedUnknown != "":
		return false, "the default branch's merges not yet applied differ"
	case !f.PlannedApplicable || !f.Applicable:
		return false, "the earlier plan may not be applied"
	case f.StateBackend != "":
		return false, "its state (backend " + f.StateBackend + ") is read only by terraform init"
	case f.PlannedLineage != f.Lineage || f.PlannedSerial != f.Serial:
		return false, fmt.Sprintf("its state moved (serial %d, planned on %d)", f.Serial, f.PlannedSerial)
	case f.Unpinned:
		return false, "it uses providers without a committed .terraform.lock.hcl"
	case len(f.RemoteModules) > 0:
		return false, "it calls modules from outside the repository (" + english.Clip(strings.Join(f.RemoteModules, ", "), 80) + ")"
	}
	return true, ""
}

// FreshNote is the run's note when something forced every project to be planned afresh
// (why: "--fresh", "the label tfgate:fresh-plan").
func FreshNote(why string) string {
	return "every project was planned afresh (" + why + "): no plan of the previous push was reused"
}
