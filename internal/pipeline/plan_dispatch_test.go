package pipeline

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/ci"
	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/github/githubtest"
	"github.com/tfgate/tfgate/internal/testenv"
)

func revIn(t *testing.T, dir, rev string) string {
	t.Helper()
	out, err := exec.Command("git", "-C", dir, "rev-parse", rev).Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// TestDispatchedPull: a workflow_dispatch re-plan becomes the pull request's event on its
// test merge with the current main, and refuses what must not be planned.
func TestDispatchedPull(t *testing.T) {
	root := testenv.WriteTree(t, map[string]string{"app/main.tf": ""})
	testenv.Git(t, root, "init", "-q", "-b", "main")
	testenv.Git(t, root, "add", "-A")
	testenv.Git(t, root, "commit", "-qm", "base")
	base := revIn(t, root, "HEAD")
	testenv.Git(t, root, "checkout", "-qb", "b")
	testenv.Git(t, root, "commit", "-q", "--allow-empty", "-m", "b")
	head := revIn(t, root, "HEAD")
	testenv.Git(t, root, "checkout", "-q", "main")
	testenv.Git(t, root, "commit", "-q", "--allow-empty", "-m", "a merged")
	main := revIn(t, root, "HEAD")
	testenv.Git(t, root, "checkout", "-q", "--detach", main)
	testenv.Git(t, root, "merge", "-q", "--no-ff", "-m", "test merge", head)

	s := githubtest.New(t)
	s.AddPull(staleRepo, githubtest.Pull{Number: 8, HeadSHA: head, BaseSHA: base, HeadRef: "b", BaseRef: "main"})
	s.SetLabels(staleRepo, 8, []string{"tfgate:app"})
	s.AddPull(staleRepo, githubtest.Pull{Number: 9, HeadSHA: head, BaseSHA: base, HeadRef: "f", Fork: true})
	s.AddPull(staleRepo, githubtest.Pull{Number: 10, HeadSHA: head, BaseSHA: base, HeadRef: "c", State: "closed"})
	api, err := github.New(github.Options{BaseURL: s.URL(), Token: githubtest.InstallationToken})
	if err != nil {
		t.Fatal(err)
	}
	run := func(n int, dispatchBase string) (ci.Event, error) {
		gh := &GitHubRun{API: api, Event: ci.Event{Name: "workflow_dispatch", Owner: "acme", Repo: "infra", PRNumber: n, HeadSHA: head, DispatchBase: dispatchBase}}
		return dispatchedPull(context.Background(), gh, root)
	}
	ev, err := run(8, main)
	if err != nil {
		t.Fatal(err)
	}
	if ev.HeadSHA != head || ev.BaseSHA != main || ev.HeadRef != "b" || ev.Fork || !ev.ForPullRequest() || strings.Join(ev.LabelList(), ",") != "tfgate:app" {
		t.Errorf("event %+v: want head %s, base %s (the test merge's first parent, not the stale base.sha %s)", ev, head, main, base)
	}
	for _, tc := range []struct {
		n            int
		dispatchBase string
		want         string
	}{
		{9, "", "refusing to re-plan pull request #9 from the fork"},
		{10, "", "pull request #10 is closed: there is nothing to re-plan"},
		{8, strings.Repeat("0", 40), "re-plan of #8 on the input base 0000000"},
	} {
		if _, err := run(tc.n, tc.dispatchBase); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("#%d: %v, want %q", tc.n, err, tc.want)
		}
	}
	testenv.Git(t, root, "checkout", "-q", "--detach", base)
	if _, err := run(8, ""); err == nil || !strings.Contains(err.Error(), "neither pull request #8's head") {
		t.Errorf("another checkout: %v", err)
	}
}
