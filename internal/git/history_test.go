package git

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// A merge queue's group: main, then one merge commit per queued pull request, each on the
// one ahead. FirstParents lists the entries, not the pull requests' own commits.
func TestFirstParents(t *testing.T) {
	dir := newRepo(t, map[string]string{"a/main.tf": "a1", "b/main.tf": "b1"})
	g := Git{Dir: dir}
	base := git(t, dir, "rev-parse", "HEAD")
	var heads []string
	for _, p := range []string{"a", "b"} {
		git(t, dir, "checkout", "-q", "-b", "pr-"+p, base)
		writeFiles(t, dir, map[string]string{p + "/main.tf": p + "2"})
		git(t, dir, "commit", "-qam", p+" 2")
		writeFiles(t, dir, map[string]string{p + "/extra.tf": p})
		git(t, dir, "add", "-A")
		git(t, dir, "commit", "-qm", p+" extra")
		heads = append(heads, git(t, dir, "rev-parse", "HEAD"))
	}
	git(t, dir, "checkout", "-q", "--detach", base)
	var entries []string
	for _, h := range heads {
		git(t, dir, "merge", "-q", "--no-ff", "-m", "queue "+h, h)
		entries = append(entries, git(t, dir, "rev-parse", "HEAD"))
	}
	chain, err := g.FirstParents(ctx(t), base, entries[1])
	if err != nil || len(chain) != 2 {
		t.Fatalf("FirstParents = %v, %v", chain, err)
	}
	for i, c := range chain {
		want := base
		if i > 0 {
			want = entries[i-1]
		}
		if c.SHA != entries[i] || !slices.Equal(c.Parents, []string{want, heads[i]}) {
			t.Errorf("entry %d = %+v, want %s with parents %s %s", i, c, entries[i], want, heads[i])
		}
	}
	if chain, err := g.FirstParents(ctx(t), entries[1], entries[1]); err != nil || len(chain) != 0 {
		t.Errorf("base = head: %v, %v", chain, err)
	}
	files, err := g.DiffFiles(ctx(t), entries[0], entries[1])
	if err != nil || !slices.Equal(files, []string{"b/extra.tf", "b/main.tf"}) {
		t.Errorf("DiffFiles = %v, %v", files, err)
	}
	if _, err := g.FirstParents(ctx(t), "0000000000000000000000000000000000000000", entries[1]); err == nil {
		t.Error("an unknown base: no error")
	}
}

func TestFirstParentsLimit(t *testing.T) {
	dir := newRepo(t, map[string]string{"f": "0"})
	g := Git{Dir: dir}
	base := git(t, dir, "rev-parse", "HEAD")
	for i := range MaxChain + 1 {
		git(t, dir, "commit", "-q", "--allow-empty", "-m", fmt.Sprint(i))
	}
	if _, err := g.FirstParents(ctx(t), base, "HEAD"); err == nil || !strings.Contains(err.Error(), "more than") {
		t.Errorf("%d commits: %v", MaxChain+1, err)
	}
	if chain, err := g.FirstParents(ctx(t), base, "HEAD~1"); err != nil || len(chain) != MaxChain {
		t.Errorf("%d commits: %d, %v", MaxChain, len(chain), err)
	}
}
