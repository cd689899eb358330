package main

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/tfgate/tfgate/internal/github/githubtest"
)

// ghStale drives what notify-stale and its re-plans use:
//
//	github workflow FILE [dispatch] [INPUT...]  the repository has the workflow FILE; with dispatch it has the
//	                                    workflow_dispatch trigger with the inputs INPUT... (the first one required)
//	github dispatched N REPODIR         the plan workflow was dispatched for pull request N (the last dispatch for
//	                                    it): runs it as GitHub would — checks out GitHub's test merge of N's head into
//	                                    origin/main (refs/pull/N/merge) detached, writes the workflow_dispatch event
//	                                    with the dispatch's inputs; sets GITHUB_EVENT_*, GITHUB_SHA and HEAD_SHA (N's head)
//	github labels N [LABEL...]          pull request N carries exactly these labels (in any order)
//	github token NAME                   GITHUB_TOKEN is the fake's token NAME (actions-read: a workflow without actions: write)
//	github run ID SHA CONCLUSION [EVENT [BRANCH]]
//	                                    GitHub recorded workflow run ID (apply.yml) for commit SHA: started by EVENT (push) on
//	                                    BRANCH (main), completed with CONCLUSION (success, failure, cancelled)
//	github forge SHA CONTEXT STATE RUNID  a workflow of the repository (a writer's branch) sets the status CONTEXT on SHA
//	                                    with its GITHUB_TOKEN, as github-actions[bot], linking workflow run RUNID
func ghStale(ts *testscript.TestScript, sub string, rest []string) {
	s := ghServer(ts)
	switch sub {
	case "workflow":
		if len(rest) < 1 {
			ts.Fatalf("usage: github workflow FILE [dispatch] [INPUT...]")
		}
		wf := githubtest.Workflow{File: rest[0]}
		if len(rest) > 1 && rest[1] == "dispatch" {
			wf.Dispatch, wf.Inputs = true, rest[2:]
			if len(wf.Inputs) > 0 {
				wf.Required = wf.Inputs[:1]
			}
		}
		s.AddWorkflow(scriptRepo, wf)
	case "dispatched":
		if len(rest) != 2 {
			ts.Fatalf("usage: github dispatched N REPODIR")
		}
		n, err := strconv.Atoi(rest[0])
		ts.Check(err)
		var d *githubtest.Dispatch
		for _, x := range s.Dispatches() {
			if x.Inputs["pr"] == rest[0] {
				x := x
				d = &x
			}
		}
		if d == nil {
			ts.Fatalf("no workflow was dispatched for pull request %d (dispatches: %+v)", n, s.Dispatches())
		}
		pr, ok := s.PullState(scriptRepo, n)
		if !ok {
			ts.Fatalf("github dispatched: no pull request %d", n)
		}
		if d.Ref != pr.HeadRef {
			ts.Fatalf("dispatched on %s, not pull request %d's branch %s (the run's commit would not be its head)", d.Ref, n, pr.HeadRef)
		}
		dir := ts.MkAbs(rest[1])
		base := gitRev(ts, dir, "origin/main")
		gitRun(ts, dir, "checkout", "-q", "-f", "--detach", base)
		gitRun(ts, dir, "merge", "-q", "--no-ff", "-m", "Merge "+pr.HeadSHA+" into "+base, pr.HeadSHA)
		inputs := map[string]any{}
		for k, v := range d.Inputs {
			inputs[k] = v
		}
		writeEvent(ts, "workflow_dispatch", fmt.Sprintf("dispatch-%d.json", n), map[string]any{
			"inputs": inputs, "ref": "refs/heads/" + d.Ref, "workflow": ".github/workflows/" + d.Workflow,
			"repository": map[string]any{"full_name": scriptRepo, "name": "infra", "owner": map[string]any{"login": "acme"}, "default_branch": "main"},
			"sender":     map[string]any{"login": githubtest.Bot.Login},
		})
		ts.Setenv("GITHUB_SHA", pr.HeadSHA) // a dispatch runs on the branch's tip
		ts.Setenv("HEAD_SHA", pr.HeadSHA)
		ts.Logf("dispatch %s on %s with %v; checked out the test merge of %s into %s", d.Workflow, d.Ref, d.Inputs, pr.HeadSHA[:7], base[:7])
	case "labels":
		if len(rest) < 1 {
			ts.Fatalf("usage: github labels N [LABEL...]")
		}
		n, err := strconv.Atoi(rest[0])
		ts.Check(err)
		got, want := s.PullLabels(scriptRepo, n), slices.Clone(rest[1:])
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			ts.Fatalf("pull request %d has the labels %q, want %q", n, got, want)
		}
	case "run":
		if len(rest) < 3 || len(rest) > 5 {
			ts.Fatalf("usage: github run ID SHA CONCLUSION [EVENT [BRANCH]]")
		}
		id, err := strconv.ParseInt(rest[0], 10, 64)
		ts.Check(err)
		run := githubtest.Run{ID: id, HeadSHA: rest[1], Conclusion: rest[2], Event: "push", HeadBranch: "main"}
		if len(rest) > 3 {
			run.Event = rest[3]
		}
		if len(rest) > 4 {
			run.HeadBranch = rest[4]
		}
		s.AddRun(scriptRepo, run)
	case "forge":
		if len(rest) != 4 {
			ts.Fatalf("usage: github forge SHA CONTEXT STATE RUNID")
		}
		u := fmt.Sprintf("https://github.example/%s/actions/runs/%s", scriptRepo, rest[3])
		s.AddLinkedStatus(scriptRepo, rest[0], githubtest.Bot, rest[2], rest[1], "forged", u)
	case "token":
		tokens := map[string]string{"actions-read": githubtest.ActionsReadToken, "installation": githubtest.InstallationToken}
		if len(rest) != 1 || tokens[rest[0]] == "" {
			ts.Fatalf("usage: github token actions-read|installation")
		}
		ts.Setenv("GITHUB_TOKEN", tokens[rest[0]])
	}
}
