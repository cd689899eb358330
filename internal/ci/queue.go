package ci

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Commit is one commit of a first-parent chain: its SHA and its parents, the first one
// first.
type Commit struct {
	SHA     string
	Parents []string
}

// MaxChain is the longest first-parent chain FirstParents walks: a merge queue merges at
// most 100 pull requests at once, and a rebase merge replays one pull request's commits.
const MaxChain = 250

// FirstParents lists the commits on head's first-parent line that base does not reach,
// oldest first: the commits a merge queue (one a queued pull request) or a push added on top
// of base. What the others brought in (a merge's second parent and its history) is theirs.
// A chain longer than MaxChain is an error.
func (g Git) FirstParents(ctx context.Context, base, head string) ([]Commit, error) {
	if base == head {
		return nil, nil
	}
	out, err := g.run(ctx, "rev-list", "--first-parent", "--parents", fmt.Sprintf("--max-count=%d", MaxChain+1), "--end-of-options", head, "^"+base)
	if err != nil {
		return nil, fmt.Errorf("list the commits between %s and %s: %w", ShortSHA(base), ShortSHA(head), err)
	}
	var chain []Commit
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		chain = append(chain, Commit{SHA: f[0], Parents: f[1:]})
	}
	if len(chain) > MaxChain {
		return nil, fmt.Errorf("more than %d commits lie between %s and %s", MaxChain, ShortSHA(base), ShortSHA(head))
	}
	for i, j := 0, len(chain)-1; i < j; i, j = i+1, j-1 {
		chain[i], chain[j] = chain[j], chain[i]
	}
	return chain, nil
}

// DiffFiles lists the files (root-relative slash paths, sorted) that differ between the
// trees of commits from and to; a rename lists both paths, as ChangedFiles does.
func (g Git) DiffFiles(ctx context.Context, from, to string) ([]string, error) {
	out, err := g.run(ctx, "diff", "--name-only", "-z", "--no-renames", "--no-ext-diff", from, to, "--")
	if err != nil {
		return nil, fmt.Errorf("list the files changed between %s and %s: %w", ShortSHA(from), ShortSHA(to), err)
	}
	files := splitZ(out)
	sort.Strings(files)
	return files, nil
}

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
