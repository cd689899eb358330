package pipeline

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/ci"
	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/github/githubtest"
)

const staleRepo = "acme/infra"

// staleFixture is a repository with related open pull requests (planning app, each with
// tfgate's sticky plan comment), 30 unrelated open ones (planning other projects) and the
// merged pull request whose merge changed app.
func staleFixture(t *testing.T, related int) (*githubtest.Server, *GitHubRun, StaleChange) {
	s := githubtest.New(t)
	s.AddWorkflow(staleRepo, githubtest.Workflow{File: "plan.yml", Dispatch: true, Inputs: []string{"pr", "base"}, Required: []string{"pr"}})
	merged := s.AddPull(staleRepo, githubtest.Pull{HeadSHA: fmt.Sprintf("%040d", 1), HeadRef: "merged"})
	s.SetLabels(staleRepo, merged, []string{"tfgate:app"})
	merge := strings.Repeat("m", 40)
	s.MergePull(staleRepo, merged, merge)
	for i := 0; i < 30; i++ {
		n := s.AddPull(staleRepo, githubtest.Pull{HeadSHA: fmt.Sprintf("%040d", 100+i), HeadRef: fmt.Sprintf("other-%d", i)})
		s.SetLabels(staleRepo, n, []string{fmt.Sprintf("tfgate:other-%d", i%3)})
	}
	for i := 0; i < related; i++ {
		n := s.AddPull(staleRepo, githubtest.Pull{HeadSHA: fmt.Sprintf("%040d", 200+i), HeadRef: fmt.Sprintf("app-%d", i)})
		s.SetLabels(staleRepo, n, []string{"tfgate:app", "tfgate:other-1"})
		s.AddComment(staleRepo, n, githubtest.Bot, fmt.Sprintf("<!-- tfgate:plan pr=%d part=1/1 -->\n## tfgate plan\n\n---\nfooter", n))
		s.AddComment(staleRepo, n, githubtest.Alice, "looks good")
	}
	api, err := github.New(github.Options{BaseURL: s.URL(), Token: githubtest.InstallationToken})
	if err != nil {
		t.Fatal(err)
	}
	gh := &GitHubRun{API: api, Event: ci.Event{Name: "push", Owner: "acme", Repo: "infra"}}
	return s, gh, StaleChange{Branch: "main", Commit: merge, Projects: []string{"app"}, All: []string{"app", "other-0", "other-1", "other-2"}}
}

// TestNotifyStaleCalls measures the API calls of notify-stale after an apply run with 0, 1
// and 20 related open pull requests (and 30 unrelated ones, never read): 3 + 5 per related
// pull request — the merge's pull request, the lists of the label tfgate:app and of
// tfgate:* (pull requests planning too many projects to label), then per pull request:
// read, dispatch, status, comments' list, edit.
func TestNotifyStaleCalls(t *testing.T) {
	for _, tc := range []struct{ related, calls int }{{0, 3}, {1, 8}, {20, 103}} {
		t.Run(fmt.Sprint(tc.related), func(t *testing.T) {
			s, gh, ch := staleFixture(t, tc.related)
			res, err := NotifyStale(context.Background(), gh, ch, ReplanAuto, "plan.yml", func(w string) { t.Error(w) })
			if err != nil {
				t.Fatal(err)
			}
			counts := s.Counts()
			keys := make([]string, 0, len(counts))
			for k := range counts {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				t.Logf("%4d %s", counts[k], k)
			}
			if got := s.Requests(); got != tc.calls {
				t.Errorf("%d related pull requests: %d API calls, want %d", tc.related, got, tc.calls)
			}
			if len(res.Pulls) != tc.related || len(s.Dispatches()) != tc.related || res.Merge != 1 {
				t.Errorf("told %d pull requests, %d dispatches, merge #%d; want %d, %d, #1", len(res.Pulls), len(s.Dispatches()), res.Merge, tc.related, tc.related)
			}
			for _, p := range res.Pulls {
				sts := s.Statuses(staleRepo, p.Head)
				if len(sts) != 1 || sts[0].State != "pending" || sts[0].Description != "stale: main changed app (#1) — re-planning" {
					t.Errorf("#%d statuses %+v", p.Number, sts)
				}
				if cs := s.Comments(staleRepo, p.Number); !strings.Contains(cs[0].Body, "<!-- tfgate:stale -->") || strings.Contains(cs[1].Body, "stale") {
					t.Errorf("#%d comments:\n%s\n---\n%s", p.Number, cs[0].Body, cs[1].Body)
				}
			}
		})
	}
}

// TestNotifyStaleShared: a shared file relates every project's pull requests (a list call
// per project); a token without actions: write tells them, re-plans none, and says so once.
func TestNotifyStaleShared(t *testing.T) {
	s, gh, ch := staleFixture(t, 2)
	ch.Projects, ch.Shared = nil, []string{"scripts/deploy.sh"}
	api, err := github.New(github.Options{BaseURL: s.URL(), Token: githubtest.ActionsReadToken})
	if err != nil {
		t.Fatal(err)
	}
	gh.API = api
	var warns []string
	res, err := NotifyStale(context.Background(), gh, ch, ReplanAuto, "plan.yml", func(w string) { warns = append(warns, w) })
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Pulls) != 32 || len(warns) != 1 || !strings.Contains(warns[0], "actions: write") {
		t.Fatalf("%d pull requests told, warnings %q", len(res.Pulls), warns)
	}
	// 1 + 4 labels + tfgate:*, 32 × (read, status, list) + 2 edits (the others have no plan
	// comment), and the one dispatch the token was refused.
	if got := s.Requests(); got != 1+5+32*3+2+1 {
		t.Errorf("%d API calls", got)
	}
	for _, p := range res.Pulls {
		if sts := s.Statuses(staleRepo, p.Head); len(sts) != 1 || sts[0].State != "failure" || !strings.HasPrefix(sts[0].Description, "stale: main changed shared scripts/deploy.sh (#1) — re-plan") {
			t.Errorf("#%d statuses %+v", p.Number, sts)
		}
	}
	if len(s.Dispatches()) != 0 {
		t.Errorf("dispatches %+v", s.Dispatches())
	}
	if _, err := NotifyStale(context.Background(), gh, ch, ReplanAlways, "plan.yml", func(string) {}); err == nil || !strings.Contains(err.Error(), "may not start workflows") {
		t.Errorf("--replan always with an actions: read token: %v", err)
	}
}

// A pull request planning more projects than it carries labels for (tfgate:*) is related
// to a change of any project.
func TestNotifyStaleManyProjects(t *testing.T) {
	s, gh, ch := staleFixture(t, 0)
	n := s.AddPull(staleRepo, githubtest.Pull{HeadSHA: strings.Repeat("9", 40), HeadRef: "many"})
	s.SetLabels(staleRepo, n, []string{github.ManyProjectsLabel})
	res, err := NotifyStale(context.Background(), gh, ch, ReplanNever, "plan.yml", func(w string) { t.Error(w) })
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Pulls) != 1 || res.Pulls[0].Number != n || strings.Join(res.Pulls[0].Projects, ",") != "app" || res.Pulls[0].Replanning {
		t.Errorf("told %+v, want #%d for app, not re-planned (--replan never)", res.Pulls, n)
	}
	if sts := s.Statuses(staleRepo, strings.Repeat("9", 40)); len(sts) != 1 || sts[0].State != "failure" || sts[0].Description != "stale: main changed app (#1) — re-plan" {
		t.Errorf("statuses %+v", sts)
	}
}
