package ci

import (
	"regexp"
	"strconv"
)

// QueueBranch is a merge queue's temporary branch, gh-readonly-queue/<base>/pr-<N>-<head>:
// the queue's commit for pull request N, built from its head commit Head on top of base and
// the entries ahead of it.
type QueueBranch struct {
	Base string // the branch the queue merges into
	PR   int
	Head string // the pull request's head commit the entry was built from
}

var queueBranch = regexp.MustCompile(`^(?:refs/heads/)?gh-readonly-queue/(.+)/pr-([0-9]+)-([0-9a-f]{40}|[0-9a-f]{64})$`)

// ParseQueueBranch reads a merge queue branch name (with or without refs/heads/).
func ParseQueueBranch(ref string) (QueueBranch, bool) {
	m := queueBranch.FindStringSubmatch(ref)
	if m == nil {
		return QueueBranch{}, false
	}
	n, err := strconv.Atoi(m[2])
	if err != nil || n <= 0 {
		return QueueBranch{}, false
	}
	return QueueBranch{Base: m[1], PR: n, Head: m[3]}, true
}
