// Package git reads the local git checkout tfgate runs in: its top level, head, base and
// merge base, the files changed, tracked or uncommitted, and files at another commit. It runs
// the git binary with an argument vector, never a shell.
package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// Git runs git in the working tree at Dir, which should be the repository's top level (see
// TopLevel) so that every path it returns is relative to the repository root.
type Git struct {
	Dir string
}

// run executes git with an argument vector (never a shell) and returns its stdout. Errors
// carry git's own message, which usually says what to do.
func (g Git) run(ctx context.Context, args ...string) ([]byte, error) {
	cmd := command(ctx, g.Dir, nil, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, fmt.Errorf("git %s: %w", args[0], ctxErr)
		}
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			return nil, fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
		}
		return nil, &gitError{args: args, msg: msg, err: err}
	}
	return stdout.Bytes(), nil
}

// gitError keeps git's stderr so callers can recognise well-known failures.
type gitError struct {
	args []string
	msg  string
	err  error
}

func (e *gitError) Error() string {
	return fmt.Sprintf("git %s: %s", e.args[0], e.msg)
}

func (e *gitError) Unwrap() error { return e.err }

// topLevels remembers TopLevel's answers: a command asks for the top level of the same
// directory several times (the root, change detection, policies), and a working tree's
// root does not move while tfgate runs. Only answers are kept, never failures.
var topLevels sync.Map // dir → top level

// TopLevel returns the root of the git working tree that contains dir.
func TopLevel(ctx context.Context, dir string) (string, error) {
	if top, ok := topLevels.Load(dir); ok {
		return top.(string), nil
	}
	top, ok := findTopLevel(dir)
	var err error
	if ok {
		rememberTop(top)
	} else {
		top, err = topLevel(ctx, dir)
	}
	if err == nil {
		topLevels.Store(dir, top)
		topLevels.Store(top, top)
	}
	return top, err
}

func topLevel(ctx context.Context, dir string) (string, error) {
	out, err := Git{Dir: dir}.run(ctx, "rev-parse", "--show-toplevel")
	if err != nil {
		var ge *gitError
		if errors.As(err, &ge) && strings.Contains(ge.msg, "not a git repository") {
			return "", fmt.Errorf("not a git repository: %s (use -C to point at one)", dir)
		}
		var pe *fs.PathError
		if errors.As(err, &pe) {
			// exec reports a missing working directory as a PathError on chdir.
			return "", fmt.Errorf("not a git repository: %s (use -C to point at one): %w", dir, err)
		}
		return "", fmt.Errorf("find git top level of %s: %w", dir, err)
	}
	top := strings.TrimSpace(string(out))
	if top == "" {
		// Inside the .git directory itself git prints nothing.
		return "", fmt.Errorf("not a git repository: %s is not inside a working tree (use -C to point at one)", dir)
	}
	return filepath.Clean(top), nil
}

// Head returns the full SHA of the commit checked out.
func (g Git) Head(ctx context.Context) (string, error) {
	sha, ok, err := g.resolve(ctx, "HEAD")
	if err != nil {
		return "", err
	}
	if !ok {
		return "", fmt.Errorf("repository %s has no commits yet: commit the Terraform code first", g.Dir)
	}
	return sha, nil
}

// resolve returns the commit SHA rev names, or ok=false when rev names no commit.
func (g Git) resolve(ctx context.Context, rev string) (sha string, ok bool, err error) {
	key := g.Dir + "\x00" + rev
	if c, known := commits.Load(key); known {
		return c.(string), true, nil
	}
	out, err := g.run(ctx, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil {
		// --quiet: exit status 1 with nothing on stderr just means "no such commit". A
		// fatal error (not a repository, dubious ownership: exit 128, with a message) is
		// not that, and its own message says what to do.
		var ee *exec.ExitError
		var ge *gitError
		if errors.As(err, &ee) && ee.ExitCode() == 1 && !errors.As(err, &ge) {
			return "", false, nil
		}
		return "", false, fmt.Errorf("resolve %s: %w", rev, err)
	}
	sha = strings.TrimSpace(string(out))
	if isFullSHA(rev) {
		commits.Store(key, sha)
	}
	if isFullSHA(sha) { // a commit's own SHA names it, whatever rev was
		commits.Store(g.Dir+"\x00"+sha, sha)
	}
	return sha, true, nil
}

// MergeBase returns the best common ancestor of HEAD and ref. git is asked for it first
// (one process, not three); only when it fails are ref and HEAD checked, in that order, to
// say which is missing.
func (g Git) MergeBase(ctx context.Context, ref string) (string, error) {
	var first error
	if !strings.HasPrefix(ref, "-") { // never an option of merge-base's
		out, err := g.run(ctx, "merge-base", "HEAD", ref)
		if err == nil {
			return strings.TrimSpace(string(out)), nil
		}
		if ctx.Err() != nil {
			return "", fmt.Errorf("merge base of HEAD and %s: %w", ref, ctx.Err())
		}
		first = err
	}
	if _, ok, err := g.resolve(ctx, ref); err != nil {
		return "", err
	} else if !ok {
		return "", fmt.Errorf("unknown git ref %q: fetch it (git fetch origin) or pass another --base", ref)
	}
	if _, err := g.Head(ctx); err != nil {
		return "", err
	}
	out, err := []byte(nil), first
	if err == nil {
		out, err = g.run(ctx, "merge-base", "HEAD", ref)
	}
	if err != nil {
		var ge *gitError
		if !errors.As(err, &ge) {
			var ee *exec.ExitError
			if errors.As(err, &ee) && ee.ExitCode() == 1 {
				return "", fmt.Errorf("HEAD and %s have no common ancestor: in a shallow clone fetch more history (git fetch --unshallow, or actions/checkout with fetch-depth: 0)", ref)
			}
		}
		return "", fmt.Errorf("merge base of HEAD and %s: %w", ref, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// ReadFile returns the content of file (relative to the repository root) at rev. A path
// missing at rev yields an error wrapping fs.ErrNotExist, so callers can fall back to
// defaults (e.g. no .tfgate.yaml on the base branch).
func (g Git) ReadFile(ctx context.Context, rev, file string) ([]byte, error) {
	// "rev:./x" would be relative to git's working directory; keep it root-relative.
	spec := rev + ":" + cleanPath(file)
	out, err := g.run(ctx, "cat-file", "blob", spec)
	if err == nil {
		return out, nil
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("read %s at %s: %w", file, rev, ctx.Err())
	}
	if _, ok, rerr := g.resolve(ctx, rev); rerr != nil {
		return nil, rerr
	} else if !ok {
		return nil, fmt.Errorf("read %s: unknown git revision %q", file, rev)
	}
	return nil, notExist(file, rev)
}

// ListFiles returns every file (root-relative, sorted) under dir in the tree of rev; dir
// "" or "." lists the whole tree.
func (g Git) ListFiles(ctx context.Context, rev, dir string) ([]string, error) {
	d := strings.Trim(filepath.ToSlash(dir), "/")
	if files, ok := g.listCommit(ctx, rev, d); ok {
		return files, nil
	}
	if _, ok, err := g.resolve(ctx, rev); err != nil {
		return nil, err
	} else if !ok {
		return nil, fmt.Errorf("list files: unknown git revision %q", rev)
	}
	out, err := g.run(ctx, lsTree(rev, d)...)
	if err != nil {
		return nil, fmt.Errorf("list files of %s at %s: %w", dir, rev, err)
	}
	files := splitZ(out)
	sort.Strings(files)
	return files, nil
}

// listCommit is ListFiles in one process when rev is plainRev: ls-tree of rev^{commit}
// lists the tree of the commit ListFiles would resolve. ok is false when it fails (no
// such commit, a bad path: ListFiles asks again, to say so in its words).
func (g Git) listCommit(ctx context.Context, rev, dir string) ([]string, bool) {
	if !plainRev(rev) {
		return nil, false
	}
	out, err := g.run(ctx, lsTree(rev+"^{commit}", dir)...)
	if err != nil {
		return nil, false
	}
	files := splitZ(out)
	sort.Strings(files)
	return files, true
}

// lsTree is the ls-tree that lists the files under the top-relative slash path dir ("" or
// "." for all) at tree-ish rev. --full-tree makes both the pathspec and the output relative
// to the root, wherever Dir is inside the working tree.
func lsTree(rev, dir string) []string {
	args := []string{"ls-tree", "-r", "-z", "--name-only", "--full-tree", rev}
	if dir != "" && dir != "." {
		args = append(args, "--", dir+"/")
	}
	return args
}

// splitZ splits NUL-terminated git output (-z), which keeps paths with spaces, newlines
// and non-ASCII characters intact and unquoted.
func splitZ(out []byte) []string {
	var paths []string
	for _, p := range bytes.Split(out, []byte{0}) {
		if len(p) > 0 {
			paths = append(paths, string(p))
		}
	}
	return paths
}

// Dirty reports whether the working tree differs from HEAD (modified, staged, deleted or
// untracked files that are not ignored).
func (g Git) Dirty(ctx context.Context) (bool, error) {
	out, err := g.run(ctx, "status", "--porcelain", "-z", "--untracked-files=normal")
	if err != nil {
		return false, fmt.Errorf("git status: %w", err)
	}
	return len(out) > 0, nil
}
