package pipeline

import (
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/ci"
	"github.com/tfgate/tfgate/internal/testenv"
)

// TestPlanGitProcesses counts the git processes of `tfgate plan app --publish none` on a
// laptop and in CI (issue 32, row (a): each is some milliseconds of a small plan's hundred)
// without an event, on a pull request's event and on a push to main. It fails when one of
// the runs starts more than it does now; fewer is welcome (lower the numbers). Before the
// combined queries of internal/git (batch.go, batch_tree.go) they were 2, 14, 11 and 14.
func TestPlanGitProcesses(t *testing.T) {
	for _, tc := range []struct {
		name  string
		event func(t *testing.T, fx *runFixture) *GitHubRun
		want  int
		ci    bool
	}{
		{"laptop", func(*testing.T, *runFixture) *GitHubRun { return nil }, 1, false},
		{"no event", func(*testing.T, *runFixture) *GitHubRun { return nil }, 9, true},
		{"pull_request", func(t *testing.T, fx *runFixture) *GitHubRun {
			return &GitHubRun{Event: fx.pullEvent()}
		}, 8, true},
		{"push", func(t *testing.T, fx *runFixture) *GitHubRun {
			merge := fx.merge(t)
			return &GitHubRun{Event: ci.Event{Name: "push", HeadSHA: merge, HeadRef: "refs/heads/main", Before: fx.base, DefaultBranch: "main", Author: "bob"}}
		}, 9, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fx := newRunFixture(t, nil)
			req := PlanRequest{Env: fx.env(t), Names: []string{"app"}, InCI: tc.ci, GitHub: tc.event(t, fx)}
			log := testenv.CountGit(t)
			run, err := RunPlan(t.Context(), req)
			if err != nil || statuses(run.Projects) != "app:planned" {
				t.Fatalf("plan: %s, %v", statuses(run.Projects), err)
			}
			runs := testenv.GitRuns(t, log)
			if len(runs) > tc.want {
				t.Errorf("the plan started %d git processes, want at most %d:\n%s", len(runs), tc.want, strings.Join(runs, "\n"))
			}
			t.Logf("%d git processes:\n%s", len(runs), strings.Join(runs, "\n"))
		})
	}
}
