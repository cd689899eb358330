package git

import (
	"context"
	"fmt"
	"strings"
)

// What apply needs to catch up earlier merges: the default branch's history, and checking
// out another commit of it and back.

// History lists rev and its first-parent ancestors, newest first, at most max of them:
// the default branch's own history, one commit per merge (or direct push).
func (g Git) History(ctx context.Context, rev string, max int) ([]string, error) {
	out, err := g.run(ctx, "rev-list", "--first-parent", fmt.Sprintf("--max-count=%d", max), "--end-of-options", rev)
	if err != nil {
		return nil, fmt.Errorf("list the history of %s: %w", rev, err)
	}
	return strings.Fields(string(out)), nil
}

// Position is where the working tree is: a branch, or a detached commit.
type Position struct {
	Branch string // "" when detached
	Commit string
}

// Where reports the branch (or detached commit) checked out, to come back to it.
func (g Git) Where(ctx context.Context) (Position, error) {
	sha, err := g.Head(ctx)
	if err != nil {
		return Position{}, err
	}
	out, err := g.run(ctx, "symbolic-ref", "-q", "--short", "HEAD")
	if err != nil { // exit 1: detached
		return Position{Commit: sha}, nil
	}
	return Position{Branch: strings.TrimSpace(string(out)), Commit: sha}, nil
}

// Checkout checks out commit sha, detached. Files git ignores (terraform's .terraform,
// a local state) stay where they are.
func (g Git) Checkout(ctx context.Context, sha string) error {
	if _, err := g.run(ctx, "checkout", "-q", "--detach", sha, "--"); err != nil {
		return fmt.Errorf("check out %s: %w", sha, err)
	}
	return nil
}

// Return checks out p again: its branch (which must still point at its commit) or its
// commit, detached.
func (g Git) Return(ctx context.Context, p Position) error {
	args := []string{"checkout", "-q", "--detach", p.Commit, "--"}
	if p.Branch != "" {
		args = []string{"checkout", "-q", p.Branch, "--"}
	}
	if _, err := g.run(ctx, args...); err != nil {
		return fmt.Errorf("check out %s again: %w", p.Commit, err)
	}
	head, err := g.Head(ctx)
	if err != nil {
		return err
	}
	if head != p.Commit {
		return fmt.Errorf("check out %s again: the branch %s is at %s now", p.Commit, p.Branch, head)
	}
	return nil
}
