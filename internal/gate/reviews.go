package gate

import (
	"cmp"
	"slices"
	"strings"
	"time"
)

// approval is a reviewer whose approval counts.
type approval struct {
	login string    // as GitHub spells it
	key   string    // lower case, for comparisons
	at    time.Time // when it was submitted: the plan it was given on (bound.go)
}

// reviews is what the reviews add up to, the same for every project.
type reviews struct {
	approvers        []approval // counted, sorted by key
	changesRequested []string   // logins with write access (or unknown) whose latest state is CHANGES_REQUESTED, sorted
	ignored          []Reason   // approvals that do not count, and why, sorted by login
}

func (r reviews) approverLogins() []string {
	out := make([]string, len(r.approvers))
	for i, a := range r.approvers {
		out[i] = a.login
	}
	return out
}

// latest is a reviewer's standing review.
type latest struct {
	login  string
	review *Review // nil: no standing review (none, or dismissed)
}

// Latest is each reviewer's standing review as GitHub computes it, by lower-case login:
// reviews are taken in submission order (SubmittedAt, then ID); APPROVED and
// CHANGES_REQUESTED set the reviewer's state, DISMISSED clears it, COMMENTED and PENDING
// leave it. Reviewers whose state is clear are left out.
func Latest(rs []Review) map[string]Review {
	out := map[string]Review{}
	for k, l := range standing(rs) {
		if l.review != nil {
			out[k] = *l.review
		}
	}
	return out
}

func standing(rs []Review) map[string]*latest {
	sorted := slices.Clone(rs)
	slices.SortStableFunc(sorted, func(a, b Review) int {
		if c := a.SubmittedAt.Compare(b.SubmittedAt); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	by := map[string]*latest{}
	for i := range sorted {
		r := &sorted[i]
		if r.Login == "" { // a deleted account: nobody to hold to it
			continue
		}
		k := strings.ToLower(r.Login)
		l := by[k]
		if l == nil {
			l = &latest{login: r.Login}
			by[k] = l
		}
		switch strings.ToUpper(r.State) {
		case Approved, ChangesRequested:
			l.review, l.login = r, r.Login
		case Dismissed:
			l.review = nil
		}
	}
	return by
}

// tally sorts the standing reviews into counted approvals, outstanding change requests
// and approvals that do not count.
func tally(pr PullRequest, rs []Review, perms map[string]string) reviews {
	var out reviews
	by := standing(rs)
	keys := make([]string, 0, len(by))
	for k := range by {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	author := strings.ToLower(pr.Author)
	head := pr.HeadSHA
	for _, k := range keys {
		l := by[k]
		if l.review == nil {
			continue
		}
		perm, known := permission(perms, k)
		if strings.ToUpper(l.review.State) == ChangesRequested {
			if !changeRequestBlocks(perm, known) {
				out.ignored = append(out.ignored, Reason{CodeNoWriteAccess,
					"@" + l.login + " requested changes with " + perm + " access; only change requests from people with write access block", true})
				continue
			}
			out.changesRequested = append(out.changesRequested, l.login)
			continue
		}
		switch {
		case k == author:
			out.ignored = append(out.ignored, Reason{CodeSelfApproval,
				"@" + l.login + " wrote the pull request; an author's own approval does not count", true})
		case !known:
			out.ignored = append(out.ignored, Reason{CodeNoWriteAccess,
				"the repository permission of @" + l.login + " is unknown; the approval does not count", true})
		case !CanWrite(perm):
			out.ignored = append(out.ignored, Reason{CodeNoWriteAccess,
				"@" + l.login + " has " + perm + " access; only approvals from people with write access count", true})
		case head == "" || l.review.CommitID != head:
			out.ignored = append(out.ignored, Reason{CodeStaleApproval,
				"approval by @" + l.login + " is on an older commit " + short(l.review.CommitID) +
					"; approve " + short(head) + " again", true})
		default:
			out.approvers = append(out.approvers, approval{login: l.login, key: k, at: l.review.SubmittedAt})
		}
	}
	return out
}

func permission(perms map[string]string, key string) (string, bool) {
	if p, ok := perms[key]; ok {
		return strings.ToLower(p), true
	}
	for k, p := range perms {
		if strings.EqualFold(k, key) {
			return strings.ToLower(p), true
		}
	}
	return "", false
}

// changeRequestBlocks is the rule that a reviewer's standing change request blocks the
// pull request (CodeChangesRequested) until they approve or it is dismissed. As on GitHub,
// only one from someone with write access blocks: anyone can review a public repository's
// pull request (CodeNoWriteAccess names such a review). Only a permission that says so
// lifts it: one unknown, empty or unheard of blocks.
func changeRequestBlocks(perm string, known bool) bool {
	return !known || !withoutWrite(perm)
}

// withoutWrite reports whether a repository permission is one GitHub names for access
// below write (triage, read, none): fail closed, anything else may be write access.
func withoutWrite(perm string) bool {
	switch strings.ToLower(perm) {
	case "triage", "read", "none":
		return true
	}
	return false
}

// CanWrite reports whether a repository permission (admin, maintain, write, triage, read,
// none; GitHub's legacy field reports maintain as write) may approve: write access.
func CanWrite(perm string) bool {
	switch strings.ToLower(perm) {
	case "admin", "maintain", "write":
		return true
	}
	return false
}
