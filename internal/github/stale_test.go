package github_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/github/githubtest"
)

func TestProjectLabel(t *testing.T) {
	for _, name := range []string{"app", "envs/prod/network", strings.Repeat("x", 43), strings.Repeat("x", 44),
		"envs/production/eu-west-1/networking/transit-gateway", "a,b", strings.Repeat("é", 60)} {
		l := github.ProjectLabel(name)
		if n := utf8.RuneCountInString(l); n > github.MaxLabelChars || !strings.HasPrefix(l, "tfgate:") || strings.Contains(l, ",") {
			t.Errorf("ProjectLabel(%q) = %q (%d characters)", name, l, n)
		}
		if len(name) <= 43 && !strings.Contains(name, ",") && l != "tfgate:"+name {
			t.Errorf("ProjectLabel(%q) = %q, want the name as is", name, l)
		}
	}
	long := "envs/production/eu-west-1/networking/transit-gateway"
	if a, b := github.ProjectLabel(long), github.ProjectLabel(long+"s"); a == b {
		t.Errorf("two long names share the label %q", a)
	}
}

// TestStaleCalls runs the labelling, label listing, statuses and dispatch calls against
// githubtest (held to GitHub's OpenAPI description), and what GitHub refuses.
func TestStaleCalls(t *testing.T) {
	ctx := context.Background()
	s := githubtest.New(t)
	a := s.AddPull(repo.String(), githubtest.Pull{HeadSHA: "abc"})
	b := s.AddPull(repo.String(), githubtest.Pull{HeadSHA: "def"})
	merged := s.AddPull(repo.String(), githubtest.Pull{HeadSHA: "123"})
	s.AddIssue(repo.String(), githubtest.Issue{Title: "an issue", Labels: []string{"tfgate:app"}})
	c := newClient(t, s, githubtest.InstallationToken)
	for _, n := range []int{a, b, merged} {
		if err := c.AddLabels(ctx, repo, n, []string{"tfgate:app", "tfgate:net"}); err != nil {
			t.Fatal(err)
		}
	}
	s.MergePull(repo.String(), merged, "456")
	if err := c.RemoveLabel(ctx, repo, b, "tfgate:app"); err != nil {
		t.Fatal(err)
	}
	if err := c.RemoveLabel(ctx, repo, b, "tfgate:app"); err != nil {
		t.Errorf("removing a label the pull request no longer has: %v", err)
	}
	got, err := c.ListLabelledPulls(ctx, repo, "tfgate:app")
	if err != nil || len(got) != 1 || got[0] != a {
		t.Errorf("pull requests labelled tfgate:app: %v, %v (want only #%d: open, a pull request)", got, err, a)
	}
	ls, err := c.ListIssueLabels(ctx, repo, b)
	if err != nil || strings.Join(ls, " ") != "tfgate:net" {
		t.Errorf("labels of #%d: %v, %v", b, ls, err)
	}
	if err := c.AddLabels(ctx, repo, a, []string{strings.Repeat("x", 51)}); github.HTTPStatus(err) != 422 {
		t.Errorf("a 51-character label: %v, want 422", err)
	}
	many := make([]string, 99)
	for i := range many {
		many[i] = fmt.Sprintf("l%d", i)
	}
	if err := c.AddLabels(ctx, repo, a, many); github.HTTPStatus(err) != 422 {
		t.Errorf("a 101st label: %v, want 422 (GitHub allows 100)", err)
	}

	for _, st := range []string{"pending", "success"} {
		if _, err := c.CreateStatus(ctx, repo, "456", github.Status{State: st, Context: "tfgate/apply"}); err != nil {
			t.Fatal(err)
		}
	}
	sts, err := c.ListStatuses(ctx, repo, "456")
	if err != nil || len(sts) != 2 || sts[0].State != "success" {
		t.Errorf("statuses %+v, %v (want newest first)", sts, err)
	}

	s.AddWorkflow(repo.String(), githubtest.Workflow{File: "plan.yml", Dispatch: true, Inputs: []string{"pr", "base"}, Required: []string{"pr"}})
	s.AddWorkflow(repo.String(), githubtest.Workflow{File: "apply.yml"})
	if err := c.DispatchWorkflow(ctx, repo, "plan.yml", "main", map[string]any{"pr": "7", "base": "456"}); err != nil {
		t.Fatal(err)
	}
	if d := s.Dispatches(); len(d) != 1 || d[0].Inputs["pr"] != "7" || d[0].Ref != "main" {
		t.Errorf("dispatches %+v", d)
	}
	for _, tc := range []struct {
		token, workflow, ref string
		inputs               map[string]any
		status               int
	}{
		{githubtest.ActionsReadToken, "plan.yml", "main", map[string]any{"pr": "7"}, 403},
		{githubtest.ForkToken, "plan.yml", "main", map[string]any{"pr": "7"}, 403},
		{githubtest.InstallationToken, "nope.yml", "main", map[string]any{"pr": "7"}, 404},
		{githubtest.InstallationToken, "apply.yml", "main", nil, 422},
		{githubtest.InstallationToken, "plan.yml", "main", map[string]any{"pr": "7", "other": "x"}, 422},
		{githubtest.InstallationToken, "plan.yml", "main", map[string]any{"base": "456"}, 422},
		{githubtest.InstallationToken, "plan.yml", "no-such-branch", map[string]any{"pr": "7"}, 422},
	} {
		err := newClient(t, s, tc.token).DispatchWorkflow(ctx, repo, tc.workflow, tc.ref, tc.inputs)
		if got := github.HTTPStatus(err); got != tc.status {
			t.Errorf("dispatch %s on %s with %v as %s: %v (HTTP %d), want %d", tc.workflow, tc.ref, tc.inputs, tc.token, err, got, tc.status)
		}
	}
	if d := s.Dispatches(); len(d) != 1 {
		t.Errorf("refused dispatches were recorded: %+v", d)
	}
}
