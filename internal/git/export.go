package git

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Export writes the whole tree of rev (every tracked file, symbolic links as links, the
// executable bit kept) into dir, which must exist and be empty; dir then looks like a
// checkout of rev without a .git. It is how tfgate sees the projects of a base commit with
// the base's own eyes: its configuration, its module graph, its directories.
//
// It uses a temporary index of its own (GIT_INDEX_FILE), so the repository's index and
// working tree are never touched.
func (g Git) Export(ctx context.Context, rev, dir string) error {
	sha, err := g.Commit(ctx, rev)
	if err != nil {
		return fmt.Errorf("export %s: %w", rev, err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	index, err := os.CreateTemp("", "tfgate-index-")
	if err != nil {
		return fmt.Errorf("export %s: %w", ShortSHA(sha), err)
	}
	index.Close()
	os.Remove(index.Name()) // git writes a fresh index there; an empty file is not one
	defer os.Remove(index.Name())
	env := []string{"GIT_INDEX_FILE=" + index.Name()}
	top, err := TopLevel(ctx, g.Dir)
	if err != nil {
		return err
	}
	// checkout-index writes relative to the top level, whatever the working directory.
	for _, args := range [][]string{
		{"read-tree", sha},
		{"checkout-index", "--all", "--force", "--prefix=" + abs + string(filepath.Separator)},
	} {
		if err := runEnv(ctx, top, env, args...); err != nil {
			return fmt.Errorf("export %s into %s: %w", ShortSHA(sha), dir, err)
		}
	}
	return nil
}

func runEnv(ctx context.Context, dir string, env []string, args ...string) error {
	cmd := command(ctx, dir, env, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return fmt.Errorf("git %s: %s", args[0], msg)
		}
		return fmt.Errorf("git %s: %w", args[0], err)
	}
	return nil
}
