package pipeline

import (
	"context"
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/bundle"
	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/github/githubtest"
	"github.com/tfgate/tfgate/internal/project"
	"github.com/tfgate/tfgate/internal/report"
	"github.com/tfgate/tfgate/internal/secret"
	"github.com/tfgate/tfgate/internal/stage"
)

// A merge queue group of #7 and #8: "shared" is changed by both entries, "only8" by #8's.
// Each project needs the approvals of every pull request that changed it; in apply a
// refused project refuses the whole group, in the gate each project keeps its own verdict.
func TestJudgeGroup(t *testing.T) {
	const queue = "9999999999999999999999999999999999999999"
	h7, h8 := strings.Repeat("7", 40), strings.Repeat("8", 40)
	s := githubtest.New(t)
	s.SetPermission(gateRepo, "bob", "write")
	s.SetPermission(gateRepo, "carol", "write")
	n7 := s.AddPull(gateRepo, githubtest.Pull{Number: 7, HeadSHA: h7, HeadRef: "seven", BaseRef: "main"})
	n8 := s.AddPull(gateRepo, githubtest.Pull{Number: 8, HeadSHA: h8, HeadRef: "eight", BaseRef: "main"})
	s.AddReview(gateRepo, n8, githubtest.Review{User: githubtest.Bob, State: "APPROVED", CommitID: h8})
	api := gateClient(t, s, githubtest.InstallationToken)
	pr := func(n int, head string) github.PullRequest {
		return github.PullRequest{Number: n, HeadSHA: head, Author: github.User{Login: "alice"}}
	}
	judge := func(kind report.Kind) *review {
		t.Helper()
		a := &review{run: report.Run{Kind: kind}, runFacts: runFacts{
			gatherer: gatherer{Env: stage.Env{Config: &config.Config{}, Masker: secret.NewMasker(nil)}, gh: &GitHubRun{API: api}},
			repo:     repoAcme, pr: pr(n8, h8), base: &config.Config{Approval: config.Approval{MinApprovals: 1}}, queue: queue,
			group: &queueGroup{entries: []queueEntry{
				{pr: pr(n7, h7), projects: map[string]bool{"shared\x00default": true}},
				{pr: pr(n8, h8), projects: map[string]bool{"shared\x00default": true, "only8\x00default": true}},
			}},
		}}
		for _, name := range []string{"shared", "only8"} {
			a.targets = append(a.targets, target{projectCase: projectCase{p: project.Project{Name: name, Dir: name, Workspace: "default"},
				bundle: &bundle.Manifest{Project: name, Dir: name, Workspace: "default", Commit: queue, Applicable: true}}})
		}
		if err := a.judgeGroup(context.Background()); err != nil {
			t.Fatal(err)
		}
		return a
	}
	status := func(a *review) map[string]report.Project {
		out := map[string]report.Project{}
		for _, t := range a.targets {
			out[t.p.Name] = t.result
		}
		return out
	}

	// #8's approval is not #7's: shared needs both.
	res := status(judge(""))
	if r := res["shared"]; r.Status != report.StatusRefused || len(r.Gate.Reasons) != 1 ||
		!strings.HasPrefix(r.Gate.Reasons[0].Text, "pull request #7: needs 1 more approval") {
		t.Errorf("gate: shared = %s %q", r.Status, r.Gate.Texts())
	}
	if r := res["only8"]; r.Status != report.StatusAllowed {
		t.Errorf("gate: only8 = %s %q", r.Status, r.Gate.Texts())
	}
	a := judge(report.KindApply)
	res = status(a)
	if r := res["only8"]; r.Status != report.StatusRefused || !strings.Contains(strings.Join(r.Gate.Texts(), "\n"), "the merge queue group that landed it is refused (shared: pull request #7") {
		t.Errorf("apply: only8 = %s %q", r.Status, r.Gate.Texts())
	}
	if a.run.Verdict.State == "success" || !strings.Contains(a.run.Verdict.Description, "pull request #7") {
		t.Errorf("apply verdict %+v", a.run.Verdict)
	}

	// With carol's approval of #7 everything passes, each approval dated on its own head.
	s.AddReview(gateRepo, n7, githubtest.Review{User: githubtest.Carol, State: "APPROVED", CommitID: h7})
	s.ResetCounts()
	a = judge(report.KindApply)
	res = status(a)
	for name, r := range res {
		if r.Status != report.StatusAllowed {
			t.Errorf("approved: %s = %s %q", name, r.Status, r.Gate.Texts())
		}
	}
	if ap := res["shared"].Gate.Approvals; len(ap) != 2 || ap[0].Login != "carol" && ap[1].Login != "carol" {
		t.Errorf("shared approvals %+v", ap)
	}
	if a.run.Verdict.State != "success" {
		t.Errorf("verdict %+v", a.run.Verdict)
	}
	// each pull request's reviews, and bob's and carol's permission once each.
	if got := s.Requests(); got != 4 {
		t.Errorf("%d API calls, want 4: %v", got, s.Counts())
	}
}
