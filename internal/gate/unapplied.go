package gate

import (
	"fmt"
	"strings"

	"github.com/tfgate/tfgate/internal/english"
)

// A plan made on a default branch with merges that no tfgate run has applied yet is made on
// the state before their apply: once apply (its catch-up) applies them, terraform finds the
// plan stale and apply refuses it (AppliedFirst). The plan records those merges of its
// project (internal/pipeline walks the default branch as apply's catch-up does), its
// comment says so, and `tfgate gate` holds tfgate/gate pending until the project is
// planned again after them (notify-stale re-plans it once they apply).

// Reason codes of a plan made on unapplied merges.
const (
	CodeUnappliedBase    = "unapplied-base"    // planned while a merge that changed the project waited to be applied
	CodeUnappliedUnknown = "unapplied-unknown" // whether the merges planned on were applied could not be told
)

// PlannedUnapplied is the reason, in `tfgate gate`, of a project planned while merges
// that changed it waited to be applied; none when there were none. It is pending: what
// lifts it is waiting, then a new plan (no change of the pull request).
func PlannedUnapplied(merges []Merge) []Reason {
	if len(merges) == 0 {
		return nil
	}
	return []Reason{{Code: CodeUnappliedBase, Pending: true, Text: fmt.Sprintf(
		"planned while %s waited to be applied: the plan is of the state before %s apply, so apply would refuse it as stale; plan it again once %s applied (tfgate notify-stale re-plans it), or push",
		mergeList(merges), english.Agree(len(merges), "its", "their"), english.Agree(len(merges), "it is", "they are"))}}
}

// UnappliedUnknown refuses, in `tfgate gate`, a project whose plan could not tell whether
// the merges of the default branch it was planned on were applied (why): fail closed.
func UnappliedUnknown(why string) []Reason {
	if why == "" {
		return nil
	}
	return []Reason{{Code: CodeUnappliedUnknown, Text: "the plan could not tell whether the default branch it was planned on was applied (" + why + "); plan it again (push, or re-run the plan workflow)"}}
}

// UnappliedNote is the plan's note of the merges planned on that no run has applied yet
// and the projects each changed (byProject: project → merges that changed it; order: the
// projects' order); "" when none.
func UnappliedNote(byProject map[string][]Merge, order []string) string {
	var merges []Merge
	changed := map[Merge][]string{}
	for _, name := range order {
		for _, m := range byProject[name] {
			if changed[m] == nil {
				merges = append(merges, m)
			}
			changed[m] = append(changed[m], name)
		}
	}
	if len(merges) == 0 {
		return ""
	}
	items := make([]string, len(merges))
	for i, m := range merges {
		items[i] = mergeList([]Merge{m}) + " changed " + strings.Join(changed[m], ", ")
	}
	return fmt.Sprintf("Planned on a default branch with %s that no tfgate run has applied yet: %s. These plans are of the state before %s apply, and apply will refuse them as stale: tfgate/gate stays pending until they are planned again once %s applied (tfgate notify-stale re-plans them then, or push).",
		english.Plural(len(merges), "merge", "merges"), strings.Join(items, "; "), english.Agree(len(merges), "its", "their"), english.Agree(len(merges), "it is", "they are"))
}

// mergeList is "#2 (merge 0ab3090)" or "#2 (merge 0ab3090), #4 (merge 1cd2e3f)".
func mergeList(ms []Merge) string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = fmt.Sprintf("#%d (merge %s)", m.PR, short(m.Commit))
	}
	return strings.Join(out, ", ")
}
