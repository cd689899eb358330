package git

import (
	"context"
	"fmt"
	"sort"
)

// TrackedDirFiles returns the files in git's index (relative to g.Dir, sorted) that are,
// or lie under, a directory called name anywhere below g.Dir: what a checkout of the
// commit puts there. It reads the index only (one git process), not the working tree:
// files that git ignores are not listed.
func (g Git) TrackedDirFiles(ctx context.Context, name string) ([]string, error) {
	out, err := g.run(ctx, "ls-files", "-z", "--cached", "--",
		":(glob)**/"+name, ":(glob)**/"+name+"/**")
	if err != nil {
		return nil, fmt.Errorf("list the files git tracks under %s/: %w", name, err)
	}
	files := splitZ(out)
	sort.Strings(files)
	return files, nil
}
