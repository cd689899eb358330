package gate

import "fmt"

// A merge queue group, or a push that landed several merges, is judged pull request by
// pull request: each commit must be tied to the pull request whose approvals it needs.
// internal/pipeline reads the commits and the pull requests; the functions here say, in
// gate's words, what does not hold ("" when it holds), and QueueGroup refuses the whole
// group for it.

// QueueCommit is a commit of a merge queue group or of a push: its SHA and its parents,
// the first one first.
type QueueCommit struct {
	SHA     string
	Parents []string
}

// Remedies of a commit that is not what its entry claims.
const (
	groupRemedy = "remove the pull request from the queue and queue it again, so that the queue rebuilds the group"
	pushRemedy  = "revert what was pushed, or bring it in by a reviewed pull request"
)

// CheckGroupCommit checks that the merge queue's entry commit c of pull request pr
// (built from its head) is what its queue branch claims; below are the replayed commits
// under it (a rebase merge's).
func CheckGroupCommit(c QueueCommit, pr int, head string, below []string) string {
	return checkQueueCommit(c, pr, head, below, "its merge queue branch", groupRemedy)
}

// CheckPushCommit checks that commit c of a push is what GitHub's record of pull request
// pr's merge (of head) claims; below are the replayed commits under it.
func CheckPushCommit(c QueueCommit, pr int, head string, below []string) string {
	return checkQueueCommit(c, pr, head, below, "GitHub's record of its merge", pushRemedy)
}

// checkQueueCommit checks that entry commit c is what it claims to be: a merge (two
// parents) merges the pull request's head; replayed commits (below) lie only below a
// rebase merge's last commit, never below a merge commit. "" when it holds.
func checkQueueCommit(c QueueCommit, pr int, head string, below []string, source, remedy string) string {
	if len(c.Parents) > 2 {
		return fmt.Sprintf("commit %s (pull request #%d) is an octopus merge: a merge queue never makes one; %s", short(c.SHA), pr, remedy)
	}
	if len(c.Parents) == 2 && c.Parents[1] != head {
		return fmt.Sprintf("commit %s is pull request #%d's by %s, but it merges %s, not the pull request's head %s; %s",
			short(c.SHA), pr, source, short(c.Parents[1]), short(head), remedy)
	}
	if len(c.Parents) == 2 && len(below) > 0 {
		return fmt.Sprintf("commit %s lies below pull request #%d's merge %s but is not the commit of any entry (gh-readonly-queue/…/pr-<N>-<head>) nor a merge of a pull request: tfgate cannot tell which pull request it belongs to, so not whose approvals it needs; %s",
			short(below[0]), pr, short(c.SHA), remedy)
	}
	return ""
}

// GroupUnlisted: the merge group's commits could not be listed (err).
func GroupUnlisted(err error) string {
	return fmt.Sprintf("the merge group's commits cannot be listed: %v", err)
}

// GroupEntryMoved: commit is pull request pr's entry, built from its head built, which
// has since moved to now.
func GroupEntryMoved(commit string, pr int, built, now string) string {
	return fmt.Sprintf("commit %s is the merge queue's entry of pull request #%d built from %s, but the pull request's head is now %s: the queue must rebuild the group",
		short(commit), pr, short(built), short(now))
}

// GroupEntryTwice: pull request pr has a second entry, commit, in the group.
func GroupEntryTwice(pr int, commit string) string {
	return fmt.Sprintf("pull request #%d has two entries in the merge group (%s): tfgate cannot tell which one was reviewed", pr, short(commit))
}

// GroupCommitUnknown: commit of the group (base..head) is no merge queue branch's commit
// (the queue's branch prefix is branch).
func GroupCommitUnknown(commit, base, head, branch string) string {
	return fmt.Sprintf("commit %s of the merge group (between %s and %s) is not the commit of any merge queue branch (gh-readonly-queue/%s/pr-<N>-<head>): tfgate cannot tell which pull request it belongs to, so not whose approvals it needs; let the queue rebuild the group",
		short(commit), short(base), short(head), branch)
}

// GroupWrongHead: the group's head is pull request got's entry, not that of want, which
// the event names.
func GroupWrongHead(head string, got, want int) string {
	return fmt.Sprintf("the merge group's head %s is the entry of pull request #%d, not of #%d that the event names", short(head), got, want)
}

// PushUnlisted: the pushed commits could not be listed (err).
func PushUnlisted(err error) string {
	return fmt.Sprintf("the pushed commits cannot be listed: %v", err)
}

// PushOutOfOrder: commit was brought in by pull request by, but the next merge above it,
// next (of pull request nextPR), is another's.
func PushOutOfOrder(commit string, by, nextPR int, next string) string {
	return fmt.Sprintf("commit %s of the push was brought in by pull request #%d, but the next merge above it is #%d's (%s)", short(commit), by, nextPR, short(next))
}

// PushMergedTwice: pull request pr merged a second time in the push, at commit.
func PushMergedTwice(pr int, commit string) string {
	return fmt.Sprintf("pull request #%d merged twice in this push (%s)", pr, short(commit))
}

// PushUntied: commit of the push (before..head) is tied to no merged pull request.
func PushUntied(commit, before, head string) string {
	return fmt.Sprintf("commit %s of the push (%s..%s) is tied to no merged pull request (GitHub associates none with it): tfgate applies only what reviewed pull requests brought in; revert it, or bring it in by a pull request",
		short(commit), short(before), short(head))
}
