package gate

// Reason codes of bundle acceptance (AcceptBundle) and of the checks apply makes of a plan
// file and of the merge beyond the gate. Like the codes of Evaluate, each is stable: the
// JSON report carries it (gate.reason_details[].code) and docs/gate-and-apply.md lists it.
const (
	CodeBundleDir          = "bundle-dir"           // the bundle was planned in another directory
	CodeUnjudged           = "unjudged"             // planned without policies that the base rules have
	CodeBundlePR           = "bundle-pr"            // the bundle was planned for another pull request
	CodeTampered           = "plan-tampered"        // the plan file's sha256 is not the manifest's
	CodeUnencrypted        = "plan-unencrypted"     // clear where it must be encrypted, or the reverse
	CodeMalformed          = "bundle-malformed"     // the bundle is not one tfgate plan wrote
	CodeStale              = "stale-inputs"         // the merge changed the project's inputs beyond the reviewed head
	CodeNoTerraformVersion = "no-terraform-version" // the bundle does not say which terraform planned it
	CodeTerraformVersion   = "terraform-version"    // planned with another terraform binary or version

	CodeNoPlans        = "no-plans"         // no reviewed bundles were found, or their archive is unsafe
	CodeNotMerged      = "not-merged"       // the commit is not a pull request's merge
	CodeNotPlanFile    = "not-plan-file"    // the plan file is not one terraform wrote
	CodePlanMode       = "plan-mode"        // a destroy, refresh-only or targeted plan that apply.allow_modes does not allow
	CodeSnapshot       = "snapshot"         // the plan file's configuration is not the reviewed code
	CodeBackend        = "plan-backend"     // the plan file applies to another state backend or workspace than the merge's
	CodeManifest       = "manifest"         // the manifest disagrees with the plan file
	CodeReplan         = "replan"           // apply.verify: replan planned something else
	CodeLeftOut        = "left-out"         // a dependency the merge changed is not in this run
	CodeQueueGroup     = "queue-group"      // the merge queue group cannot be judged
	CodeGroupRefused   = "group-refused"    // another part of the merge queue group is refused
	CodeUncoveredFiles = "uncovered-review" // what no plan covers was not approved
)
