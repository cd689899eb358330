package git

import (
	"bytes"
	"context"
	"fmt"
)

// Gitlinks returns the submodules of the tree of rev: each gitlink's path (relative to the
// top level) and the commit it records. A submodule's files are in another repository, so
// what the superproject's history says of them is that commit alone.
func (g Git) Gitlinks(ctx context.Context, rev string) (map[string]string, error) {
	out, err := g.run(ctx, "ls-tree", "-r", "-z", "--full-tree", "--end-of-options", rev)
	if err != nil {
		return nil, fmt.Errorf("list the submodules at %s: %w", rev, err)
	}
	links := map[string]string{}
	for _, entry := range bytes.Split(out, []byte{0}) {
		// "<mode> SP <type> SP <object> TAB <path>"
		meta, name, ok := bytes.Cut(entry, []byte{'\t'})
		if f := bytes.Fields(meta); ok && len(f) == 3 && string(f[0]) == "160000" {
			links[string(name)] = string(f[2])
		}
	}
	return links, nil
}
