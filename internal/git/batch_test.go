package git

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/tfgate/tfgate/internal/testenv"
)

// The combined queries (batch.go, DefaultBase, ListFiles) must answer what the single ones
// they replaced answer, errors included. The old ones are kept here, as they were, and both
// are asked of repositories built to be odd: missing refs, detached and unborn HEADs,
// branches named like a SHA or like origin/main, a tag and a branch of the same name, refs
// with odd characters, a ref to a tree, a broken ref, a dangling origin/HEAD, a shallow clone.

// oldDefaultBase is DefaultBase one process per question, as it was.
func oldDefaultBase(ctx context.Context, g Git) (string, error) {
	out, err := g.run(ctx, "symbolic-ref", "--quiet", "refs/remotes/origin/HEAD")
	if err == nil {
		if ref := strings.TrimSpace(string(out)); ref != "" {
			return strings.TrimPrefix(ref, "refs/remotes/"), nil
		}
	} else if ctx.Err() != nil {
		return "", fmt.Errorf("find default branch: %w", ctx.Err())
	}
	for _, c := range []struct{ full, short string }{
		{"refs/remotes/origin/main", "origin/main"},
		{"refs/remotes/origin/master", "origin/master"},
		{"refs/heads/main", "main"},
		{"refs/heads/master", "master"},
	} {
		_, ok, err := g.resolve(ctx, c.full)
		if err != nil {
			return "", fmt.Errorf("find default branch: %w", err)
		}
		if ok {
			return c.short, nil
		}
	}
	return "", fmt.Errorf("cannot tell the default branch of %s (no origin/HEAD, origin/main, origin/master, main or master): pass --base REF", g.Dir)
}

// oldListFiles is ListFiles as it was: the rev resolved, then ls-tree.
func oldListFiles(ctx context.Context, g Git, rev, dir string) ([]string, error) {
	if _, ok, err := g.resolve(ctx, rev); err != nil {
		return nil, err
	} else if !ok {
		return nil, fmt.Errorf("list files: unknown git revision %q", rev)
	}
	out, err := g.run(ctx, lsTree(rev, strings.Trim(filepath.ToSlash(dir), "/"))...)
	if err != nil {
		return nil, fmt.Errorf("list files of %s at %s: %w", dir, rev, err)
	}
	files := splitZ(out)
	sort.Strings(files)
	return files, nil
}

// oldCommitTreeFS is Commit, ReadFile, then TreeFS read one process per file, as it was.
func oldCommitTreeFS(ctx context.Context, g Git, rev, file string, pick func(string, []byte, error) ([]string, error)) (string, fs.FS, error) {
	sha, err := g.Commit(ctx, rev)
	if err != nil {
		return "", nil, err
	}
	data, err := g.ReadFile(ctx, sha, file)
	dirs, err := pick(sha, data, err)
	if err != nil {
		return sha, nil, err
	}
	tree := fstest.MapFS{}
	for _, dir := range dirs {
		d := path.Clean(strings.TrimPrefix(dir, "./"))
		if d == "." {
			d = ""
		}
		files, err := oldListFiles(ctx, g, sha, d)
		if err != nil {
			return sha, nil, err
		}
		for _, f := range files {
			data, err := g.ReadFile(ctx, sha, f)
			if err != nil {
				return sha, nil, err
			}
			tree[f] = &fstest.MapFile{Data: data, Mode: 0o644}
		}
	}
	return sha, tree, nil
}

// treeText is every file of tree and its content, one a line.
func treeText(tree fs.FS) string {
	if tree == nil {
		return "<nil>"
	}
	var b strings.Builder
	err := fs.WalkDir(tree, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(tree, p)
		fmt.Fprintf(&b, "%s=%q\n", p, data)
		return err
	})
	if err != nil {
		return "walk: " + err.Error()
	}
	return b.String()
}

// answer is one answer and its error, as compared.
func answer(v any, err error) string {
	if err != nil {
		return fmt.Sprintf("error %q (not exist: %v)", err, errors.Is(err, fs.ErrNotExist))
	}
	return fmt.Sprintf("%q", v)
}

// forget drops what resolve remembered, so that each way asks git.
func forget() {
	commits.Range(func(k, _ any) bool { commits.Delete(k); return true })
}

// oddRepo is a repository of two commits on main with files of every kind, a branch
// named like a SHA, one named origin/main, a tag and a branch both named twin, refs with
// odd characters, an annotated tag as refs/remotes/origin/master and a ref to a tree.
func oddRepo(t *testing.T) (repo, first, second string) {
	t.Helper()
	sub := newRepo(t, map[string]string{"s.tf": "# s\n"})
	repo = newRepo(t, map[string]string{
		".tfgate.yaml": "version: 1\n", "policies/a.rego": "package a\n", "policies/dir/b.rego": "package b\n",
		"policies/empty.rego": "", "policies/with space ü.rego": "package c\n", "conf.yaml/inner": "a directory\n",
	})
	first = git(t, repo, "rev-parse", "HEAD")
	if err := os.Symlink("a.rego", filepath.Join(repo, "policies", "link.rego")); err != nil {
		t.Fatal(err)
	}
	git(t, repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "policies/sub")
	git(t, repo, "add", "-A")
	git(t, repo, "commit", "-q", "-m", "second")
	second = git(t, repo, "rev-parse", "HEAD")
	git(t, repo, "branch", first)                // a branch named like a SHA, at the second commit
	git(t, repo, "branch", "origin/main", first) // refs/heads/origin/main
	git(t, repo, "branch", "twin", first)
	git(t, repo, "tag", "twin", second) // a tag and a branch of the same name
	git(t, repo, "branch", "feat/ü+x#1", first)
	git(t, repo, "tag", "-a", "-m", "annotated", "ann", first)
	git(t, repo, "update-ref", "refs/remotes/origin/master", git(t, repo, "rev-parse", "ann"))
	git(t, repo, "update-ref", "refs/remotes/origin/tree", second+"^{tree}")
	return repo, first, second
}

// TestCombinedQueriesAgreeWithSingleOnes asks every question both ways, in every state of
// oddRepo and of a shallow clone of it.
func TestCombinedQueriesAgreeWithSingleOnes(t *testing.T) {
	repo, first, second := oddRepo(t)
	shallow := filepath.Join(t.TempDir(), "shallow")
	git(t, filepath.Dir(shallow), "clone", "-q", "--depth", "1", "file://"+repo, shallow)
	revs := []string{"HEAD", "twin", "origin/main", "refs/remotes/origin/tree", first, first[:12], "feat/ü+x#1", "main~1",
		"main", "master", "refs/remotes/origin/main", "origin/master", second, "ann", "main^{tree}",
		"nope", "-x", "a..b", "HEAD:policies", "0000000000000000000000000000000000000000"}
	const heavy = 8 // the revs every file, tree and directory is asked of
	files := []string{".tfgate.yaml", "/.tfgate.yaml", "nope.yaml", "conf.yaml", "policies/a.rego", "policies/link.rego",
		"policies/sub", "policies/empty.rego", "policies/with space ü.rego", "./policies/a.rego", "policies"}
	dirs := []string{"", ".", "policies", "policies/", "nope", "policies/dir", ":(exclude)x", "policies/*"}
	var picks []func(string, []byte, error) ([]string, error)
	for _, dirs := range [][]string{{"policies"}, {"./policies/"}, {"."}, {""}, {"policies/sub"}, {"policies/dir", "policies/a.rego"},
		{"nope", "conf.yaml"}, {"../x"}, {"policies/link.rego"}, {"conf.yaml/inner"}, {"policies/dir/", "policies/dir"}, {":/policies"}} {
		picks = append(picks, func(sha string, data []byte, err error) ([]string, error) {
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, err
			}
			if strings.Contains(string(data), "refuse") {
				return nil, fmt.Errorf("refused at %s", sha)
			}
			return dirs, nil
		})
	}
	states := []struct {
		name  string
		dir   string
		setup func(t *testing.T, dir string)
		files bool // files, trees and directories asked too (refs alone change little of them)
	}{
		{"on main", repo, func(t *testing.T, dir string) {}, true},
		{"detached", repo, func(t *testing.T, dir string) { git(t, dir, "checkout", "-q", "--detach", first) }, false},
		{"origin/main a tree", repo, func(t *testing.T, dir string) {
			git(t, dir, "update-ref", "refs/remotes/origin/main", second+"^{tree}")
		}, true},
		{"broken ref", repo, func(t *testing.T, dir string) {
			writeFiles(t, filepath.Join(dir, ".git"), map[string]string{"refs/remotes/origin/main": "not a sha\n"})
		}, false},
		{"origin/HEAD dangling", repo, func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, ".git", "refs", "remotes", "origin", "main"))
			git(t, dir, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/gone")
		}, false},
		{"origin/HEAD", repo, func(t *testing.T, dir string) {
			git(t, dir, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/master")
		}, false},
		{"origin/HEAD not symbolic, no main", repo, func(t *testing.T, dir string) {
			git(t, dir, "update-ref", "--no-deref", "-d", "refs/remotes/origin/HEAD")
			git(t, dir, "update-ref", "refs/remotes/origin/HEAD", first)
			git(t, dir, "update-ref", "-d", "refs/remotes/origin/master")
			git(t, dir, "checkout", "-q", "--detach")
			git(t, dir, "branch", "-q", "-m", "main", "trunk")
		}, false},
		{"unborn HEAD", repo, func(t *testing.T, dir string) { git(t, dir, "checkout", "-q", "--orphan", "new") }, true},
		{"shallow clone", shallow, func(t *testing.T, dir string) {}, true},
	}
	ctx := context.Background()
	for _, st := range states {
		st.setup(t, st.dir)
		g := Git{Dir: st.dir}
		if _, err := TopLevel(ctx, st.dir); err != nil || !g.knownPrefix() {
			t.Fatalf("TopLevel(%s): %v (CommitTreeFS answers in one process at a top level it found)", st.dir, err)
		}
		t.Run(st.name, func(t *testing.T) {
			forget()
			newBase, newErr := g.DefaultBase(ctx)
			forget()
			oldBase, oldErr := oldDefaultBase(ctx, g)
			if n, o := answer(newBase, newErr), answer(oldBase, oldErr); n != o {
				t.Errorf("DefaultBase: %s; one by one: %s", n, o)
			}
			for i, rev := range revs {
				forget()
				shas, found, ok := g.resolveAll(ctx, []string{rev})
				forget()
				sha, isCommit, err := g.resolve(ctx, rev)
				if ok && (err != nil || found[0] != isCommit || shas[0] != sha) {
					t.Errorf("resolveAll(%s) = %q %v; resolve: %q %v %v", rev, shas[0], found[0], sha, isCommit, err)
				}
				if i >= heavy || !st.files {
					continue // the rest only name nothing or what rev-parse syntax names
				}
				for _, file := range files {
					forget()
					newSHA, newData, newErr := g.CommitFile(ctx, rev, file)
					forget()
					oldSHA, oldErr := g.Commit(ctx, rev)
					var oldData []byte
					if oldErr == nil {
						oldData, oldErr = g.ReadFile(ctx, oldSHA, file)
					}
					if n, o := answer(newSHA+" "+string(newData), newErr), answer(oldSHA+" "+string(oldData), oldErr); n != o {
						t.Errorf("CommitFile(%s, %s): %s; one by one: %s", rev, file, n, o)
					}
				}
				forget()
				newDatas, newErr := g.readFiles(ctx, rev, files[4:9])
				var oldDatas [][]byte
				var oldErr2 error
				for _, f := range files[4:9] {
					forget()
					d, err := g.ReadFile(ctx, rev, f)
					if err != nil {
						oldDatas, oldErr2 = nil, err
						break
					}
					oldDatas = append(oldDatas, d)
				}
				if n, o := answer(newDatas, newErr), answer(oldDatas, oldErr2); n != o {
					t.Errorf("readFiles(%s): %s; one by one: %s", rev, n, o)
				}
				for _, pick := range picks {
					forget()
					newSHA, newTree, newErr := g.CommitTreeFS(ctx, rev, ".tfgate.yaml", pick)
					forget()
					oldSHA, oldTree, oldErr := oldCommitTreeFS(ctx, g, rev, ".tfgate.yaml", pick)
					if n, o := answer(newSHA+" "+treeText(newTree), newErr), answer(oldSHA+" "+treeText(oldTree), oldErr); n != o {
						t.Errorf("CommitTreeFS(%s): %s; one by one: %s", rev, n, o)
					}
				}
				for _, dir := range dirs {
					forget()
					newFiles, newErr := g.ListFiles(ctx, rev, dir)
					forget()
					oldFiles, oldErr := oldListFiles(ctx, g, rev, dir)
					if n, o := answer(newFiles, newErr), answer(oldFiles, oldErr); n != o {
						t.Errorf("ListFiles(%s, %q): %s; one by one: %s", rev, dir, n, o)
					}
				}
			}
		})
	}
}

// TestCombinedQueriesStartFewerProcesses counts the git processes of the questions a CI plan
// asks of a repository of one commit on main: DefaultBase, the base's configuration file,
// the base's configuration and policies together, and HEAD's files.
func TestCombinedQueriesStartFewerProcesses(t *testing.T) {
	repo := newRepo(t, map[string]string{"app/main.tf": "# app\n", "policies/a.rego": "package a\n", "policies/b/c.rego": "package c\n"})
	ctx := context.Background()
	if _, err := TopLevel(ctx, repo); err != nil {
		t.Fatal(err)
	}
	log := countGit(t)
	g := Git{Dir: repo}
	base, err := g.DefaultBase(ctx)
	if err != nil || base != "main" {
		t.Fatalf("DefaultBase = %q, %v", base, err)
	}
	if n := gitProcesses(t, log); n != 2 {
		t.Errorf("DefaultBase started %d git processes, want 2 (symbolic-ref, cat-file --batch-check)", n)
	}
	if _, _, err := g.CommitFile(ctx, base, ".tfgate.yaml"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("CommitFile: %v", err)
	}
	if n := gitProcesses(t, log); n != 1 {
		t.Errorf("CommitFile started %d git processes, want 1", n)
	}
	pick := func(string, []byte, error) ([]string, error) { return []string{"policies"}, nil }
	if _, tree, err := g.CommitTreeFS(ctx, base, ".tfgate.yaml", pick); err != nil || treeText(tree) != "policies/a.rego=\"package a\\n\"\npolicies/b/c.rego=\"package c\\n\"\n" {
		t.Fatalf("CommitTreeFS = %s, %v", treeText(tree), err)
	}
	if n := gitProcesses(t, log); n != 1 {
		t.Errorf("CommitTreeFS started %d git processes, want 1 (one per file before)", n)
	}
	if files, err := g.ListFiles(ctx, "HEAD", ""); err != nil || !slices.Equal(files, []string{"app/main.tf", "policies/a.rego", "policies/b/c.rego"}) {
		t.Fatalf("ListFiles = %q, %v", files, err)
	}
	if n := gitProcesses(t, log); n != 1 {
		t.Errorf("ListFiles(HEAD) started %d git processes, want 1", n)
	}
}

// countGit is testenv.CountGit; gitProcesses counts the runs since the last count.
func countGit(t *testing.T) string { return testenv.CountGit(t) }

func gitProcesses(t *testing.T, log string) int { return len(testenv.GitRuns(t, log)) }

// TestCombinedQueriesSHA256 asks the combined queries of a SHA-256 repository, whose tree
// entries hold 32-byte object names.
func TestCombinedQueriesSHA256(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "repo")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "init", "-q", "-b", "main", "--object-format=sha256")
	writeFiles(t, dir, map[string]string{".tfgate.yaml": "version: 1\n", "policies/a.rego": "package a\n", "policies/d/b.rego": "package b\n"})
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "initial")
	ctx := context.Background()
	if _, err := TopLevel(ctx, dir); err != nil {
		t.Fatal(err)
	}
	g := Git{Dir: dir}
	pick := func(string, []byte, error) ([]string, error) { return []string{"policies"}, nil }
	forget()
	log := countGit(t)
	sha, tree, err := g.CommitTreeFS(ctx, "main", ".tfgate.yaml", pick)
	if n := gitProcesses(t, log); n != 1 {
		t.Errorf("CommitTreeFS started %d git processes, want 1", n)
	}
	forget()
	oldSHA, oldTree, oldErr := oldCommitTreeFS(ctx, g, "main", ".tfgate.yaml", pick)
	if n, o := answer(sha+" "+treeText(tree), err), answer(oldSHA+" "+treeText(oldTree), oldErr); n != o || len(sha) != 64 || !strings.Contains(n, "policies/d/b.rego") {
		t.Errorf("CommitTreeFS: %s; one by one: %s", n, o)
	}
	if base, err := g.DefaultBase(ctx); err != nil || base != "main" {
		t.Errorf("DefaultBase = %q, %v", base, err)
	}
}
