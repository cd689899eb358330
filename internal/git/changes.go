package git

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// DefaultBase returns the ref a laptop run compares against: the remote's default branch
// (what origin/HEAD points at), else origin/main or origin/master, else a local main or
// master branch. origin/HEAD and the four are asked at once, in two processes.
func (g Git) DefaultBase(ctx context.Context) (string, error) {
	candidates := []struct{ full, short string }{
		{"refs/remotes/origin/main", "origin/main"},
		{"refs/remotes/origin/master", "origin/master"},
		{"refs/heads/main", "main"},
		{"refs/heads/master", "master"},
	}
	full := make([]string, len(candidates))
	for i, c := range candidates {
		full[i] = c.full
	}
	sym := make(chan error, 1)
	var out []byte
	go func() {
		var err error
		out, err = g.run(ctx, "symbolic-ref", "--quiet", "refs/remotes/origin/HEAD")
		sym <- err
	}()
	_, found, batched := g.resolveAll(ctx, full)
	if err := <-sym; err == nil {
		if ref := strings.TrimSpace(string(out)); ref != "" {
			// Callers show the ref to people: "origin/main", not "refs/remotes/origin/main".
			return strings.TrimPrefix(ref, "refs/remotes/"), nil
		}
	} else if ctx.Err() != nil {
		return "", fmt.Errorf("find default branch: %w", ctx.Err())
	}
	for i, c := range candidates {
		ok := batched && found[i]
		if !batched {
			var err error
			if _, ok, err = g.resolve(ctx, c.full); err != nil {
				return "", fmt.Errorf("find default branch: %w", err)
			}
		}
		if ok {
			return c.short, nil
		}
	}
	return "", fmt.Errorf("cannot tell the default branch of %s (no origin/HEAD, origin/main, origin/master, main or master): pass --base REF", g.Dir)
}

// Changes are the files a change touches, compared with a base ref.
type Changes struct {
	Base      string   // the ref compared with, as given (or the default branch)
	MergeBase string   // SHA of the merge base of HEAD and Base
	Files     []string // root-relative slash paths, sorted, unique
	// Committed are the Files that differ between the merge base and HEAD (committed
	// changes, not the working tree's edits or untracked files), sorted.
	Committed []string
}

// ChangedFiles lists every file that differs between the merge base of HEAD and base and
// the working tree: committed changes on the branch, staged and unstaged edits, and
// untracked files that are not ignored, except what terraform writes as it runs (state,
// .terraform/, plan files, crash logs: terraformOutput), which is never a change. Deleted files are listed, and a rename lists both
// its old and its new path, so a project that moved is seen at both places. base "" means
// DefaultBase.
func (g Git) ChangedFiles(ctx context.Context, base string) (Changes, error) {
	if base == "" {
		b, err := g.DefaultBase(ctx)
		if err != nil {
			return Changes{}, err
		}
		base = b
	}
	// --no-renames reports a rename as a delete plus an add, which is exactly "both paths";
	// it also overrides a user's diff.renames setting so the output is the same everywhere.
	// What does not depend on the merge base is asked while git finds it.
	queries := [][]string{
		{"diff", "--name-only", "-z", "--no-renames", "--no-ext-diff", "--cached", "HEAD", "--"},
		{"diff", "--name-only", "-z", "--no-renames", "--no-ext-diff", "HEAD", "--"},
		// --full-name and ":/" keep untracked paths root-relative even if Dir is a subdir.
		{"ls-files", "-z", "--others", "--exclude-standard", "--full-name", "--", ":/"},
	}
	const untracked = 3 // the index of ls-files --others in outs
	qctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var rest [][]byte
	var restErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		rest, restErr = g.runAll(qctx, queries)
	}()
	mb, err := g.MergeBase(ctx, base)
	if err != nil {
		cancel()
		<-done
		return Changes{}, err
	}
	committed, err := g.run(ctx, "diff", "--name-only", "-z", "--no-renames", "--no-ext-diff", mb, "HEAD", "--")
	<-done
	if err == nil {
		err = restErr
	}
	if err != nil {
		return Changes{}, fmt.Errorf("list changed files: %w", err)
	}
	outs := append([][]byte{committed}, rest...)
	return changesOf(base, mb, outs, untracked), nil
}

// changesOf gathers ChangedFiles' answer from its queries' outputs, the merge base's diff
// first.
func changesOf(base, mb string, outs [][]byte, untracked int) Changes {
	seen := map[string]bool{}
	var files []string
	committed := splitZ(outs[0])
	sort.Strings(committed)
	for i, out := range outs {
		for _, f := range splitZ(out) {
			if i == untracked && terraformOutput(f) {
				continue
			}
			if !seen[f] {
				seen[f] = true
				files = append(files, f)
			}
		}
	}
	sort.Strings(files)
	return Changes{Base: base, MergeBase: mb, Files: files, Committed: committed}
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
