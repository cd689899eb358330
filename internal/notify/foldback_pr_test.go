package notify

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/report"
)

// foldAPI is a small fake of the fold-back calls: the open pull requests, branches and
// commits it is given, and every write it is asked for.
type foldAPI struct {
	pulls    []github.Pull
	closed   []github.Pull
	branches map[string]string
	commits  map[string]github.GitCommit
	calls    []string
}

func (f *foldAPI) ListOpenPulls(context.Context, github.Repo) ([]github.Pull, error) {
	f.calls = append(f.calls, "list")
	return f.pulls, nil
}
func (f *foldAPI) GetBranch(_ context.Context, _ github.Repo, b string) (string, bool, error) {
	f.calls = append(f.calls, "get branch")
	sha, ok := f.branches[b]
	return sha, ok, nil
}
func (f *foldAPI) GetCommit(_ context.Context, _ github.Repo, sha string) (github.GitCommit, error) {
	f.calls = append(f.calls, "get commit")
	c, ok := f.commits[sha]
	if !ok {
		return c, fmt.Errorf("no commit %s", sha)
	}
	return c, nil
}
func (f *foldAPI) CreateTree(_ context.Context, _ github.Repo, base string, files []github.TreeFile) (string, error) {
	f.calls = append(f.calls, "tree")
	return "tree-new", nil
}
func (f *foldAPI) CreateCommit(_ context.Context, _ github.Repo, msg, tree string, parents []string) (string, error) {
	f.calls = append(f.calls, "commit")
	if !strings.HasSuffix(msg, "\n"+foldBackTreeTrailer+tree+"\n"+foldBackTrailer+"app\n") || fmt.Sprint(parents) != "[checked]" {
		return "", fmt.Errorf("commit message %q, parents %v", msg, parents)
	}
	return "new", nil
}
func (f *foldAPI) CreateBranch(_ context.Context, _ github.Repo, b, sha string) error {
	f.calls = append(f.calls, "create branch "+b)
	return nil
}
func (f *foldAPI) MoveBranch(_ context.Context, _ github.Repo, b, sha string) error {
	f.calls = append(f.calls, "move branch "+b)
	return nil
}
func (f *foldAPI) DeleteBranch(_ context.Context, _ github.Repo, b string) error {
	f.calls = append(f.calls, "delete branch "+b)
	return nil
}
func (f *foldAPI) ListClosedPulls(context.Context, github.Repo, string) ([]github.Pull, error) {
	f.calls = append(f.calls, "list closed")
	return f.closed, nil
}
func (f *foldAPI) CreatePull(_ context.Context, _ github.Repo, p github.NewPull) (github.Pull, error) {
	f.calls = append(f.calls, "open "+p.Head+" into "+p.Base)
	return github.Pull{PullRequest: github.PullRequest{Number: 9, HeadRef: p.Head}, Body: p.Body, HTMLURL: "https://github.com/acme/infra/pull/9"}, nil
}
func (f *foldAPI) EditPull(_ context.Context, _ github.Repo, n int, title, body, state *string) (github.Pull, error) {
	switch {
	case state != nil:
		f.calls = append(f.calls, fmt.Sprintf("%s #%d", *state, n))
	case body != nil:
		f.calls = append(f.calls, fmt.Sprintf("edit body #%d", n))
	}
	return github.Pull{}, nil
}
func (f *foldAPI) CreateIssueComment(_ context.Context, _ github.Repo, n int, body string) (github.Comment, error) {
	f.calls = append(f.calls, fmt.Sprintf("comment #%d", n))
	return github.Comment{}, nil
}

const foldBranch = FoldBackBranchPrefix + "app"

func foldPull(author string) github.Pull {
	return github.Pull{PullRequest: github.PullRequest{Number: 4, HeadRef: foldBranch, HeadSHA: "tip", BaseRef: "main",
		Author: github.User{Login: author}}, HTMLURL: "https://github.com/acme/infra/pull/4"}
}

func ours(tree string, parents ...string) github.GitCommit {
	return github.GitCommit{SHA: "tip", Tree: tree, Parents: parents, Message: "Fold drift back\n\n" + foldBackTreeTrailer + tree + "\n" + foldBackTrailer + "app\n"}
}

// amended is tfgate's commit amended by someone (or rebased): tfgate's message, another
// tree than the one it records.
func amended(tree string, parents ...string) github.GitCommit {
	c := ours("tree-old", parents...)
	c.Tree = tree
	return c
}

// TestPublishFoldBacks: what each night does to a project's fold-back pull request, and
// the calls it costs.
func TestPublishFoldBacks(t *testing.T) {
	files := []github.TreeFile{{Path: "app/main.tf", Mode: "100644", Content: "x"}}
	for _, c := range []struct {
		name     string
		status   report.Status
		plan     FoldBackPlan
		api      foldAPI
		done     report.FoldBackDone
		why      string
		calls    string
		wantPull bool
	}{
		{"first night", report.StatusDrifted, FoldBackPlan{Files: files, Tree: "tree-new"}, foldAPI{},
			report.FoldBackOpened, "", "list, get branch, tree, commit, create branch " + foldBranch + ", open " + foldBranch + " into main", true},
		{"same drift", report.StatusDrifted, FoldBackPlan{Files: files, Tree: "tree-new"},
			foldAPI{pulls: []github.Pull{foldPull("tfgate[bot]")}, commits: map[string]github.GitCommit{"tip": ours("tree-new", "checked")}},
			report.FoldBackKept, "", "list, get commit", true},
		{"drift changed", report.StatusDrifted, FoldBackPlan{Files: files, Tree: "tree-new"},
			foldAPI{pulls: []github.Pull{foldPull("tfgate[bot]")}, commits: map[string]github.GitCommit{"tip": ours("tree-old", "checked")}},
			report.FoldBackUpdated, "", "list, get commit, tree, commit, move branch " + foldBranch, true},
		{"default branch moved", report.StatusDrifted, FoldBackPlan{Files: files, Tree: "tree-new"},
			foldAPI{pulls: []github.Pull{foldPull("tfgate[bot]")}, commits: map[string]github.GitCommit{"tip": ours("tree-new", "older")}},
			report.FoldBackUpdated, "", "list, get commit, tree, commit, move branch " + foldBranch, true},
		{"branch left without a pull request", report.StatusDrifted, FoldBackPlan{Files: files, Tree: "tree-new"},
			foldAPI{branches: map[string]string{foldBranch: "tip"}, commits: map[string]github.GitCommit{"tip": ours("tree-new", "checked")}},
			report.FoldBackOpened, "", "list, get branch, get commit, list closed, open " + foldBranch + " into main", true},
		{"closed by a human, the same drift", report.StatusDrifted, FoldBackPlan{Files: files, Tree: "tree-new"},
			foldAPI{closed: []github.Pull{foldPull("tfgate[bot]")}, branches: map[string]string{foldBranch: "tip"},
				commits: map[string]github.GitCommit{"tip": ours("tree-new", "checked")}},
			report.FoldBackNone, "pull request #4 with these edits was closed without merging; tfgate opens another when the drift changes",
			"list, get branch, get commit, list closed", false},
		{"closed by a human, the drift changed", report.StatusDrifted, FoldBackPlan{Files: files, Tree: "tree-new"},
			foldAPI{closed: []github.Pull{foldPull("tfgate[bot]")}, branches: map[string]string{foldBranch: "tip"},
				commits: map[string]github.GitCommit{"tip": ours("tree-old", "checked")}},
			report.FoldBackOpened, "", "list, get branch, get commit, tree, commit, move branch " + foldBranch + ", open " + foldBranch + " into main", true},
		{"someone else's commit on the branch", report.StatusDrifted, FoldBackPlan{Files: files, Tree: "tree-new"},
			foldAPI{branches: map[string]string{foldBranch: "tip"}, commits: map[string]github.GitCommit{"tip": {SHA: "tip", Tree: "t", Message: "mine\n"}}},
			report.FoldBackNone, "branch tfgate/fold-back/app holds a commit tfgate did not make; tfgate leaves it alone", "list, get branch, get commit", false},
		{"someone else's pull request from the branch", report.StatusDrifted, FoldBackPlan{Files: files, Tree: "tree-new"},
			foldAPI{pulls: []github.Pull{foldPull("mallory")}, branches: map[string]string{foldBranch: "tip"},
				commits: map[string]github.GitCommit{"tip": {SHA: "tip", Tree: "t", Message: "mine\n"}}},
			report.FoldBackNone, "branch tfgate/fold-back/app holds a commit tfgate did not make; tfgate leaves it alone", "list, get branch, get commit", false},
		{"tfgate's commit amended by someone", report.StatusDrifted, FoldBackPlan{Files: files, Tree: "tree-new"},
			foldAPI{pulls: []github.Pull{foldPull("tfgate[bot]")}, commits: map[string]github.GitCommit{"tip": amended("tree-theirs", "checked")}},
			report.FoldBackNone, "branch tfgate/fold-back/app holds a commit tfgate did not make; tfgate leaves it alone", "list, get commit", false},
		{"tfgate's commit rebased by someone", report.StatusDrifted, FoldBackPlan{Files: files, Tree: "tree-new"},
			foldAPI{branches: map[string]string{foldBranch: "tip"}, commits: map[string]github.GitCommit{"tip": amended("tree-rebased", "newer")}},
			report.FoldBackNone, "branch tfgate/fold-back/app holds a commit tfgate did not make; tfgate leaves it alone", "list, get branch, get commit", false},
		{"back in sync, tfgate's commit amended", report.StatusInSync, FoldBackPlan{},
			foldAPI{pulls: []github.Pull{foldPull("tfgate[bot]")}, commits: map[string]github.GitCommit{"tip": amended("tree-theirs", "checked")}},
			report.FoldBackClosed, "the drift is gone", "list, comment #4, closed #4, get commit", false},
		{"back in sync", report.StatusInSync, FoldBackPlan{},
			foldAPI{pulls: []github.Pull{foldPull("tfgate[bot]")}, commits: map[string]github.GitCommit{"tip": ours("tree-new", "checked")}},
			report.FoldBackClosed, "the drift is gone", "list, comment #4, closed #4, get commit, delete branch " + foldBranch, false},
		{"back in sync, someone pushed to the branch", report.StatusInSync, FoldBackPlan{},
			foldAPI{pulls: []github.Pull{foldPull("tfgate[bot]")}, commits: map[string]github.GitCommit{"tip": {SHA: "tip", Message: "mine\n"}}},
			report.FoldBackClosed, "the drift is gone", "list, comment #4, closed #4, get commit", false},
		{"no longer foldable", report.StatusDrifted, FoldBackPlan{Why: "a secret"},
			foldAPI{pulls: []github.Pull{foldPull("tfgate[bot]")}, commits: map[string]github.GitCommit{"tip": ours("tree-new", "checked")}},
			report.FoldBackClosed, "a secret", "list, comment #4, closed #4, get commit, delete branch " + foldBranch, false},
		{"unfoldable", report.StatusDrifted, FoldBackPlan{Why: "a secret"}, foldAPI{}, report.FoldBackNone, "a secret", "list", false},
		{"checks failed", report.StatusCheckFailed, FoldBackPlan{Why: "only checks failed"}, foldAPI{}, report.FoldBackNone, "only checks failed", "list", false},
		{"check errored", report.StatusFailed, FoldBackPlan{}, foldAPI{pulls: []github.Pull{foldPull("tfgate[bot]")}},
			report.FoldBackKept, "", "list", true},
		{"in sync, nothing open", report.StatusInSync, FoldBackPlan{}, foldAPI{}, "", "", "list", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.plan.Branch = foldBranch
			api := c.api
			o := FoldBacks{API: &api, Repo: github.Repo{Owner: "acme", Name: "infra"}, Identity: github.Identity{Login: "tfgate[bot]"},
				Base: "main", Commit: "checked", BaseTree: "base-tree"}
			run := report.Run{Projects: []report.Project{{Name: "app", Status: c.status}}}
			got, pulls, err := PublishFoldBacks(context.Background(), o, run, []FoldBackPlan{c.plan})
			if err != nil {
				t.Fatal(err)
			}
			fb := got.Projects[0].FoldBack
			var done report.FoldBackDone
			why := ""
			if fb != nil {
				done, why = fb.Done, fb.Why
			}
			if done != c.done || why != c.why {
				t.Errorf("fold-back %q (%q), want %q (%q)", done, why, c.done, c.why)
			}
			if calls := strings.Join(api.calls, ", "); calls != c.calls {
				t.Errorf("calls: %s\nwant:  %s", calls, c.calls)
			}
			if _, ok := pulls[0]; ok != c.wantPull {
				t.Errorf("pull request kept for linking: %v, want %v", ok, c.wantPull)
			}
			if run.Projects[0].FoldBack != nil {
				t.Error("the caller's run was changed")
			}
		})
	}
}

// LinkFoldBacks edits a pull request's body only when it does not link the issue yet.
func TestLinkFoldBacks(t *testing.T) {
	api := &foldAPI{}
	o := FoldBacks{API: api, Repo: github.Repo{Owner: "acme", Name: "infra"}}
	p := report.Project{Name: "app", Status: report.StatusDrifted, Issue: "https://github.com/acme/infra/issues/2",
		Suggestions: []string{`app/main.tf:13  content = "a" → "b"`, "fakecloud_object.x.tags: set by an expression"}}
	pl := FoldBackPlan{Branch: foldBranch}
	linked := o.body(p, pl, p.Issue)
	if !strings.Contains(linked, "**Drift issue:** https://github.com/acme/infra/issues/2") || strings.Contains(linked, "set by an expression") {
		t.Errorf("body:\n%s", linked)
	}
	run := report.Run{Projects: []report.Project{p}}
	for _, body := range []string{o.body(p, pl, ""), linked} {
		api.calls = nil
		pulls := map[int]github.Pull{0: {PullRequest: github.PullRequest{Number: 9}, Body: body}}
		if err := LinkFoldBacks(context.Background(), o, run, []FoldBackPlan{pl}, pulls); err != nil {
			t.Fatal(err)
		}
		want := []string{"edit body #9"}
		if body == linked {
			want = nil
		}
		if !slices.Equal(api.calls, want) {
			t.Errorf("calls %v, want %v", api.calls, want)
		}
	}
}
