package git

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// askGit is what git itself answers for Prefix, GitDirs and a commit's resolution.
func askGit(t *testing.T, g Git, sha string) (prefix string, dirs []string, commit string) {
	t.Helper()
	ctx := context.Background()
	out, err := g.run(ctx, "rev-parse", "--show-prefix")
	if err != nil {
		t.Fatal(err)
	}
	prefix = strings.TrimSpace(string(out))
	if out, err = g.run(ctx, "rev-parse", "--absolute-git-dir", "--git-common-dir"); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Fields(string(out)) {
		if !filepath.IsAbs(l) {
			l = filepath.Join(g.Dir, l)
		}
		dirs = append(dirs, filepath.Clean(l))
	}
	slices.Sort(dirs)
	dirs = slices.Compact(dirs)
	if out, err = g.run(ctx, "rev-parse", "--verify", sha+"^{commit}"); err != nil {
		t.Fatal(err)
	}
	return prefix, dirs, strings.TrimSpace(string(out))
}

// TestKnownAnswersAgreeWithGit checks that what Prefix, GitDirs and Commit answer from
// memory (no git started: PATH is empty the second time) is what git answers, in a
// repository's top level, a subdirectory of it (asked of git) and a linked worktree (its
// git directories asked of git).
func TestKnownAnswersAgreeWithGit(t *testing.T) {
	repo := newRepo(t, map[string]string{"a/main.tf": "# a\n"})
	wt := filepath.Join(t.TempDir(), "wt")
	git(t, repo, "worktree", "add", "-q", "-b", "other", wt)
	head := git(t, repo, "rev-parse", "HEAD")
	ctx := context.Background()
	for _, tc := range []struct {
		name, dir  string
		remembered bool // every answer comes from memory
	}{
		{"top level", repo, true},
		{"subdirectory", filepath.Join(repo, "a"), false},
		{"linked worktree", wt, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			top, err := TopLevel(ctx, tc.dir)
			if err != nil {
				t.Fatal(err)
			}
			g := Git{Dir: tc.dir}
			wantPrefix, wantDirs, wantCommit := askGit(t, g, head)
			if _, err := g.Commit(ctx, "HEAD"); err != nil { // head's SHA remembered from here on
				t.Fatal(err)
			}
			if tc.remembered {
				if top != tc.dir {
					t.Fatalf("TopLevel(%s) = %s", tc.dir, top)
				}
				t.Setenv("PATH", "") // a git started now fails
			}
			prefix, err := g.Prefix(ctx)
			if err != nil || prefix != wantPrefix {
				t.Errorf("Prefix = %q, %v; git says %q", prefix, err, wantPrefix)
			}
			dirs, err := g.GitDirs(ctx)
			if err != nil || !slices.Equal(dirs, wantDirs) {
				t.Errorf("GitDirs = %q, %v; git says %q", dirs, err, wantDirs)
			}
			commit, err := g.Commit(ctx, head)
			if err != nil || commit != wantCommit {
				t.Errorf("Commit(%s) = %q, %v; git says %q", head, commit, err, wantCommit)
			}
		})
	}
}

// TestMovableRevsAreAskedAgain checks that a ref's resolution is never remembered: a commit
// moves HEAD and the branch.
func TestMovableRevsAreAskedAgain(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{"main.tf": "# 1\n"})
	g := Git{Dir: repo}
	ctx := context.Background()
	for _, rev := range []string{"HEAD", "main"} {
		before, err := g.Commit(ctx, rev)
		if err != nil {
			t.Fatal(err)
		}
		writeFiles(t, repo, map[string]string{"main.tf": "# " + rev + "\n"})
		git(t, repo, "commit", "-qam", rev)
		after, err := g.Commit(ctx, rev)
		if err != nil {
			t.Fatal(err)
		}
		if want := git(t, repo, "rev-parse", rev); after != want || after == before {
			t.Errorf("%s: before %s, after a commit %s; git says %s", rev, before, after, want)
		}
	}
}

// TestMergeBaseUnbornHead checks that MergeBase, which asks git for the merge base first,
// still says what is missing when that fails: HEAD on a branch with no commit yet.
func TestMergeBaseUnbornHead(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{"main.tf": "# 1\n"})
	git(t, repo, "checkout", "-q", "--orphan", "new")
	_, err := Git{Dir: repo}.MergeBase(context.Background(), "main")
	if err == nil || !strings.Contains(err.Error(), "has no commits yet") {
		t.Errorf("MergeBase(main) with HEAD unborn: %v, want it to say HEAD has no commits", err)
	}
}
