package github_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/github/githubtest"
)

const matchingRefs = "GET /repos/{owner}/{repo}/git/matching-refs/{ref}"

// A merge queue's branches are listed in one call: the prefix's slashes travel escaped in
// the one path parameter, and only references under it come back.
func TestListMatchingRefs(t *testing.T) {
	ctx := context.Background()
	s := githubtest.New(t)
	sha := func(i int) string { return fmt.Sprintf("%040x", i) }
	s.SetRef(repo.String(), "refs/heads/gh-readonly-queue/main/pr-7-"+sha(70), sha(7))
	s.SetRef(repo.String(), "refs/heads/gh-readonly-queue/main/pr-8-"+sha(80), sha(8))
	s.SetRef(repo.String(), "refs/heads/gh-readonly-queue/release/pr-9-"+sha(90), sha(9))
	s.SetRef(repo.String(), "refs/heads/main", sha(1))
	c := newClient(t, s, githubtest.InstallationToken)

	refs, err := c.ListMatchingRefs(ctx, repo, "heads/gh-readonly-queue/main")
	want := []github.Ref{{Name: "refs/heads/gh-readonly-queue/main/pr-7-" + sha(70), SHA: sha(7)},
		{Name: "refs/heads/gh-readonly-queue/main/pr-8-" + sha(80), SHA: sha(8)}}
	if err != nil || fmt.Sprint(refs) != fmt.Sprint(want) || s.Count(matchingRefs) != 1 {
		t.Errorf("ListMatchingRefs = %v, %v in %d calls\nwant %v", refs, err, s.Count(matchingRefs), want)
	}
	refs, err = c.ListMatchingRefs(ctx, repo, "refs/heads/gh-readonly-queue/none/")
	if err != nil || len(refs) != 0 {
		t.Errorf("no match: %v, %v", refs, err)
	}

	// More than a page: the Link header's next page is followed.
	for i := range 45 {
		s.SetRef(repo.String(), fmt.Sprintf("refs/heads/gh-readonly-queue/busy/pr-%d-%s", i+1, sha(i)), sha(1000+i))
	}
	s.ResetCounts()
	refs, err = c.ListMatchingRefs(ctx, repo, "heads/gh-readonly-queue/busy/")
	if err != nil || len(refs) != 45 || s.Count(matchingRefs) != 2 {
		t.Errorf("%d references in %d calls, %v", len(refs), s.Count(matchingRefs), err)
	}
	for _, r := range refs {
		if !strings.HasPrefix(r.Name, "refs/heads/gh-readonly-queue/busy/") {
			t.Errorf("listed %s", r.Name)
		}
	}
}

// A rebase merge's replayed commits are associated with the pull request that brought them
// in, as GitHub does; a commit no merge brought in is associated with none.
func TestListCommitPullsIntroduced(t *testing.T) {
	ctx := context.Background()
	s := githubtest.New(t)
	n := s.AddPull(repo.String(), githubtest.Pull{HeadSHA: "h1", HeadRef: "a"})
	s.MergePullCommits(repo.String(), n, "r2", []string{"r1"})
	c := newClient(t, s, githubtest.InstallationToken)
	for _, sha := range []string{"r1", "r2"} {
		prs, err := c.ListCommitPulls(ctx, repo, sha)
		if err != nil || len(prs) != 1 || prs[0].Number != n || !prs[0].Merged || prs[0].MergeCommitSHA != "r2" {
			t.Errorf("%s: %+v, %v", sha, prs, err)
		}
	}
	if prs, err := c.ListCommitPulls(ctx, repo, "x9"); err != nil || len(prs) != 0 {
		t.Errorf("a commit no merge brought in: %+v, %v", prs, err)
	}
}
