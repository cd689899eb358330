package gate

import (
	"errors"
	"testing"
)

// Each way a merge queue group or a push cannot be tied to its pull requests, in the words
// the refusal carries (QueueGroup prefixes them); "" where the commit is what it claims.
func TestQueueProblems(t *testing.T) {
	const (
		head  = "1111111aaaa"
		other = "2222222bbbb"
		merge = "3333333cccc"
	)
	cases := []struct {
		name string
		got  string
		want string
	}{
		{"a merge of the pull request's head", CheckGroupCommit(QueueCommit{SHA: merge, Parents: []string{other, head}}, 7, head, nil), ""},
		{"a rebase merge's last commit over its replays", CheckPushCommit(QueueCommit{SHA: merge, Parents: []string{other}}, 7, head, []string{other}), ""},
		{"an octopus merge", CheckGroupCommit(QueueCommit{SHA: merge, Parents: []string{other, head, "x"}}, 7, head, nil),
			"commit 3333333 (pull request #7) is an octopus merge: a merge queue never makes one; " + groupRemedy},
		{"a merge of something else", CheckPushCommit(QueueCommit{SHA: merge, Parents: []string{other, other}}, 7, head, nil),
			"commit 3333333 is pull request #7's by GitHub's record of its merge, but it merges 2222222, not the pull request's head 1111111; " + pushRemedy},
		{"commits below a merge commit", CheckGroupCommit(QueueCommit{SHA: merge, Parents: []string{other, head}}, 7, head, []string{other}),
			"commit 2222222 lies below pull request #7's merge 3333333 but is not the commit of any entry (gh-readonly-queue/…/pr-<N>-<head>) nor a merge of a pull request: tfgate cannot tell which pull request it belongs to, so not whose approvals it needs; " + groupRemedy},
		{"unlisted group", GroupUnlisted(errors.New("404")), "the merge group's commits cannot be listed: 404"},
		{"an entry whose head moved", GroupEntryMoved(merge, 7, head, other),
			"commit 3333333 is the merge queue's entry of pull request #7 built from 1111111, but the pull request's head is now 2222222: the queue must rebuild the group"},
		{"two entries", GroupEntryTwice(7, merge), "pull request #7 has two entries in the merge group (3333333): tfgate cannot tell which one was reviewed"},
		{"an unknown commit", GroupCommitUnknown(merge, other, head, "main"),
			"commit 3333333 of the merge group (between 2222222 and 1111111) is not the commit of any merge queue branch (gh-readonly-queue/main/pr-<N>-<head>): tfgate cannot tell which pull request it belongs to, so not whose approvals it needs; let the queue rebuild the group"},
		{"another pull request's head", GroupWrongHead(head, 8, 7), "the merge group's head 1111111 is the entry of pull request #8, not of #7 that the event names"},
		{"unlisted push", PushUnlisted(errors.New("exit status 128")), "the pushed commits cannot be listed: exit status 128"},
		{"replays of another", PushOutOfOrder(other, 6, 7, merge), "commit 2222222 of the push was brought in by pull request #6, but the next merge above it is #7's (3333333)"},
		{"merged twice", PushMergedTwice(7, merge), "pull request #7 merged twice in this push (3333333)"},
		{"tied to nothing", PushUntied(merge, other, head),
			"commit 3333333 of the push (2222222..1111111) is tied to no merged pull request (GitHub associates none with it): tfgate applies only what reviewed pull requests brought in; revert it, or bring it in by a pull request"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s:\n got  %q\n want %q", c.name, c.got, c.want)
		}
	}
}
