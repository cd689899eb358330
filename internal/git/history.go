package git

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
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

// IsAncestor reports whether commit a is b or one of b's ancestors.
func (g Git) IsAncestor(ctx context.Context, a, b string) (bool, error) {
	_, err := g.run(ctx, "merge-base", "--is-ancestor", a, b)
	if err == nil {
		return true, nil
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 1 {
		return false, nil
	}
	return false, fmt.Errorf("is %s an ancestor of %s: %w", ShortSHA(a), ShortSHA(b), err)
}

// TestMergeBase is what GitHub's test merge checked out at HEAD (refs/pull/N/merge, the
// default checkout of pull_request events) merged head into: its first parent, the base
// branch as it was when GitHub made the merge. ok is false when HEAD is not such a merge
// (two parents, the second head), and when base (the pull request's base.sha, which GitHub
// does not move as the base branch moves on) is not an ancestor of that parent.
func (g Git) TestMergeBase(ctx context.Context, head, base string) (string, bool, error) {
	out, err := g.run(ctx, "rev-list", "--parents", "--max-count=1", "--end-of-options", "HEAD")
	if err != nil {
		return "", false, fmt.Errorf("read the parents of the checked-out commit: %w", err)
	}
	f := strings.Fields(string(out))
	if len(f) != 3 || head == "" || f[2] != head {
		return "", false, nil
	}
	if base != "" {
		if ok, err := g.IsAncestor(ctx, base, f[1]); err != nil || !ok {
			return "", false, err
		}
	}
	return f[1], true, nil
}
