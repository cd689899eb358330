package git

import (
	"context"
	"strings"
)

// Shallow reports whether the clone is shallow (actions/checkout's default fetch-depth: 1):
// the history it holds ends before the repository's first commit.
func (g Git) Shallow(ctx context.Context) (bool, error) {
	out, err := g.run(ctx, "rev-parse", "--is-shallow-repository")
	if err != nil {
		return false, err
	}
	return strings.TrimSpace(string(out)) == "true", nil
}
