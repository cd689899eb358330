package git

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"testing/fstest"
)

// TreeFS returns the files under dirs (relative to g.Dir) as they are in the tree of rev,
// as an in-memory file system whose paths are relative to g.Dir. It is how tfgate reads
// policies and rules from a pull request's base commit rather than from the change under
// review. A dir missing at rev is simply absent from the result.
func (g Git) TreeFS(ctx context.Context, rev string, dirs []string) (fs.FS, error) {
	prefix, err := g.Prefix(ctx)
	if err != nil {
		return nil, fmt.Errorf("read tree %s: %w", rev, err)
	}
	tree := fstest.MapFS{}
	for _, dir := range dirs {
		d := path.Clean(strings.TrimPrefix(dir, "./"))
		if d == "." {
			d = ""
		}
		files, err := g.ListFiles(ctx, rev, prefix+d)
		if err != nil {
			return nil, err
		}
		var inside []string
		for _, f := range files {
			if strings.HasPrefix(f, prefix) {
				inside = append(inside, f)
			}
		}
		datas, err := g.readFiles(ctx, rev, inside)
		if err != nil {
			return nil, err
		}
		for i, f := range inside {
			tree[strings.TrimPrefix(f, prefix)] = &fstest.MapFile{Data: datas[i], Mode: 0o644}
		}
	}
	return tree, nil
}

// Prefix is g.Dir relative to the git top-level: "" at the top-level, else "sub/dir/".
func (g Git) Prefix(ctx context.Context) (string, error) {
	if g.knownPrefix() {
		return "", nil
	}
	out, err := g.run(ctx, "rev-parse", "--show-prefix")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// Commit resolves rev to a full commit SHA; an unknown rev is an error saying so.
func (g Git) Commit(ctx context.Context, rev string) (string, error) {
	sha, ok, err := g.resolve(ctx, rev)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", fmt.Errorf("unknown git revision %q: fetch it (git fetch origin) or pass another --base", rev)
	}
	return sha, nil
}
