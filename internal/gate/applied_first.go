package gate

import "fmt"

// CodeAppliedFirst: terraform found the reviewed plan stale after an earlier merge that
// changed the same project was applied first in the same run (apply's catch-up).
const CodeAppliedFirst = "applied-first"

// Merge is a pull request's merge on the default branch.
type Merge struct {
	PR     int
	Commit string
}

// AppliedFirst refuses a project whose reviewed plan terraform refused as stale when an
// earlier merge (first) applied the same project earlier in this run: the plan was made on
// a default branch where that merge was not yet applied, so it is the cause, not an apply
// outside tfgate. A refusal, not a failure: nothing was applied, and a new plan fixes it.
func AppliedFirst(first Merge) Reason {
	return Reason{Code: CodeAppliedFirst, Text: fmt.Sprintf(
		"the reviewed plan is stale: #%d was applied first in this run (merge %s, which no run had applied when this plan was made) and changed the project's state since it was planned. Nothing was applied; plan the project again in a new pull request",
		first.PR, short(first.Commit))}
}
