package github_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/github/githubtest"
	"github.com/tfgate/tfgate/internal/testenv"
)

// gitRepo is a checkout with app/main.tf and README.md on main, its objects and branch
// pushed to the fake; and the tree git makes of it with app/main.tf edited.
func gitRepo(t *testing.T, s *githubtest.Server) (head, wantTree string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		testenv.Missing(t, fmt.Errorf("git: %v (install git)", err))
	}
	dir := t.TempDir()
	run := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t",
			"GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
		return strings.TrimSpace(string(out))
	}
	run("init", "-q", "-b", "main")
	for f, c := range map[string]string{"app/main.tf": "content = \"v1\"\n", "README.md": "hi\n", "app/modules/x/x.tf": "# x\n"} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run("add", "-A")
	run("commit", "-q", "-m", "initial")
	out, err := exec.Command("git", "-C", dir, "cat-file", "--batch-all-objects", "--batch").Output()
	if err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(bytes.NewReader(out))
	for {
		h, err := r.ReadString('\n')
		if err == io.EOF {
			break
		}
		f := strings.Fields(h)
		n, _ := strconv.Atoi(f[2])
		data := make([]byte, n+1)
		if _, err := io.ReadFull(r, data); err != nil {
			t.Fatal(err)
		}
		s.SetObject(repo.String(), f[1], data[:n])
	}
	head = run("rev-parse", "HEAD")
	s.SetRef(repo.String(), "refs/heads/main", head)
	// What git itself makes of the edit: the tree GitHub must make too.
	if err := os.WriteFile(filepath.Join(dir, "app/main.tf"), []byte("content = \"v2\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run("add", "-A")
	return head, run("write-tree")
}

// The fold-back calls against the fake: a tree written on a base tree is the tree git
// makes; a branch created once (again: ErrRefExists), read with its slashes plain; a pull
// request opened once (again: GitHub's 422, then the open one found by head); the branch
// moved, the pull request's head following; the pull request closed, listed by its
// branch among the closed ones; the branch deleted.
func TestFoldBackCalls(t *testing.T) {
	ctx := context.Background()
	s := githubtest.New(t)
	head, wantTree := gitRepo(t, s)
	c := newClient(t, s, githubtest.InstallationToken)
	const branch = "tfgate/fold-back/app"

	if _, found, err := c.GetBranch(ctx, repo, branch); found || err != nil {
		t.Fatalf("GetBranch of a missing branch = %v, %v", found, err)
	}
	base, err := c.GetCommit(ctx, repo, head)
	if err != nil || len(base.Parents) != 0 || base.Message != "initial\n" {
		t.Fatalf("GetCommit = %+v, %v", base, err)
	}
	tree, err := c.CreateTree(ctx, repo, base.Tree, []github.TreeFile{{Path: "app/main.tf", Mode: "100644", Content: "content = \"v2\"\n"}})
	if err != nil || tree != wantTree {
		t.Fatalf("CreateTree = %s, %v; git makes %s", tree, err, wantTree)
	}
	sha, err := c.CreateCommit(ctx, repo, "fold back\n", tree, []string{head})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CreateBranch(ctx, repo, branch, sha); err != nil {
		t.Fatal(err)
	}
	if err := c.CreateBranch(ctx, repo, branch, sha); !errors.Is(err, github.ErrRefExists) {
		t.Errorf("CreateBranch again = %v, want ErrRefExists", err)
	}
	if got, found, err := c.GetBranch(ctx, repo, branch); got != sha || !found || err != nil {
		t.Errorf("GetBranch = %s, %v, %v; want %s", got, found, err, sha)
	}
	np := github.NewPull{Title: "t", Head: branch, Base: "main", Body: "b"}
	pr, err := c.CreatePull(ctx, repo, np)
	if err != nil || pr.Number == 0 || pr.HeadSHA != sha || pr.Body != "b" || pr.HTMLURL == "" {
		t.Fatalf("CreatePull = %+v, %v", pr, err)
	}
	again, err := c.CreatePull(ctx, repo, np)
	if err != nil || again.Number != pr.Number {
		t.Errorf("CreatePull again = %+v, %v; want #%d", again, err, pr.Number)
	}
	if n := s.Count("POST /repos/{owner}/{repo}/pulls"); n != 2 {
		t.Errorf("%d creations", n)
	}
	c2, err := c.CreateCommit(ctx, repo, "fold back again\n", tree, []string{head})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.MoveBranch(ctx, repo, branch, c2); err != nil {
		t.Fatal(err)
	}
	open, err := c.ListOpenPulls(ctx, repo)
	if err != nil || len(open) != 1 || open[0].HeadSHA != c2 || open[0].HeadRef != branch {
		t.Errorf("ListOpenPulls = %+v, %v; want the head at %s", open, err, c2)
	}
	closed := "closed"
	if _, err := c.EditPull(ctx, repo, pr.Number, nil, nil, &closed); err != nil {
		t.Fatal(err)
	}
	if open, err := c.ListOpenPulls(ctx, repo); err != nil || len(open) != 0 {
		t.Errorf("after closing: %+v, %v", open, err)
	}
	if closedPRs, err := c.ListClosedPulls(ctx, repo, branch); err != nil || len(closedPRs) != 1 || closedPRs[0].Number != pr.Number || closedPRs[0].Merged {
		t.Errorf("ListClosedPulls = %+v, %v", closedPRs, err)
	}
	if err := c.DeleteBranch(ctx, repo, branch); err != nil {
		t.Fatal(err)
	}
	if _, found, err := c.GetBranch(ctx, repo, branch); found || err != nil {
		t.Errorf("after DeleteBranch: %v, %v", found, err)
	}
	if err := c.DeleteBranch(ctx, repo, branch); github.HTTPStatus(err) != 422 {
		t.Errorf("DeleteBranch of a missing branch: %v, want 422", err)
	}
	if _, err := c.CreatePull(ctx, repo, github.NewPull{Title: "t", Head: "nope", Base: "main"}); github.HTTPStatus(err) != 422 {
		t.Errorf("a pull request from a missing branch: %v, want 422", err)
	}
}

// GitHub does the write and answers 5xx: the tree and commit are sent again (the same tree;
// a second commit), the branch's second creation is ErrRefExists, and the pull request's
// second creation finds the one GitHub opened — never a second pull request.
func TestFoldBackCallsWriteThenFail(t *testing.T) {
	ctx := context.Background()
	s := githubtest.New(t)
	head, wantTree := gitRepo(t, s)
	c := newClient(t, s, githubtest.InstallationToken)
	base, err := c.GetCommit(ctx, repo, head)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"POST /repos/{owner}/{repo}/git/trees", "POST /repos/{owner}/{repo}/git/commits",
		"POST /repos/{owner}/{repo}/git/refs", "POST /repos/{owner}/{repo}/pulls"} {
		s.WriteThenFailNext(1, 502, m)
	}
	tree, err := c.CreateTree(ctx, repo, base.Tree, []github.TreeFile{{Path: "app/main.tf", Mode: "100644", Content: "content = \"v2\"\n"}})
	if err != nil || tree != wantTree {
		t.Fatalf("CreateTree = %s, %v", tree, err)
	}
	sha, err := c.CreateCommit(ctx, repo, "m\n", tree, []string{head})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CreateBranch(ctx, repo, "tfgate/fold-back/app", sha); !errors.Is(err, github.ErrRefExists) {
		t.Errorf("CreateBranch = %v, want ErrRefExists (the first attempt made it)", err)
	}
	pr, err := c.CreatePull(ctx, repo, github.NewPull{Title: "t", Head: "tfgate/fold-back/app", Base: "main"})
	if err != nil || pr.Number == 0 {
		t.Fatalf("CreatePull = %+v, %v", pr, err)
	}
	if open, _ := c.ListOpenPulls(ctx, repo); len(open) != 1 {
		t.Errorf("%d pull requests open, want 1", len(open))
	}
}
