package git

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
)

// GitDirs are the directories git keeps g's repository in: its git directory and, for a
// linked worktree, the common one it shares with the main worktree (absolute, each once).
// With the working tree they are what terraform's read guard denies.
func (g Git) GitDirs(ctx context.Context) ([]string, error) {
	if dirs, ok := g.knownGitDirs(); ok {
		return dirs, nil
	}
	out, err := g.run(ctx, "rev-parse", "--absolute-git-dir", "--git-common-dir")
	if err != nil {
		return nil, err
	}
	var dirs []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		d := strings.TrimSpace(line)
		if d == "" {
			continue
		}
		if !filepath.IsAbs(d) {
			d = filepath.Join(g.Dir, d)
		}
		dirs = append(dirs, filepath.Clean(d))
	}
	slices.Sort(dirs)
	return slices.Compact(dirs), nil
}

// Tracked reports whether git tracks file (relative to g.Dir, "../" allowed) in the index.
func (g Git) Tracked(ctx context.Context, file string) (bool, error) {
	out, err := g.run(ctx, "ls-files", "-z", "--", file)
	if err != nil {
		return false, err
	}
	return len(out) > 0, nil
}
