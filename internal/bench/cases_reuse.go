package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/github/githubtest"
)

// (e) A push re-plans only what changed (docs/busy-repositories.md): a pull request of 40
// projects, all planned on its first push, gets a second push that changes one. With the
// first push's plans in its artifact (on the fake GitHub), tfgate plan reuses 39 and plans
// one; that is compared with planning that one project alone: the same plan run of another
// pull request that changes only that project (change detection over the repository's 40
// projects included, as on any pull request). A second row counts the push's GitHub API
// calls with reuse against the same push planned afresh (--fresh).

const (
	reuseProjects = 40
	reuseChanged  = "p07"
	reuseRepo     = "acme/infra"
)

var reuseCase = Case{Name: "reuse", Rounds: 7, Setup: reusePush, Rows: reuseRows}

// reuseCalls are the API calls of one push with reuse and planned afresh (Setup counts
// them; Rows reports them).
var reuseCalls [2]int

func reuseRows(a, b Stats) []Row {
	with, without := reuseCalls[0], reuseCalls[1]
	return []Row{
		{What: fmt.Sprintf("(e) a push changing 1 of %d planned projects: tfgate plan (reusing %d) ÷ a pull request changing that 1 alone", reuseProjects, reuseProjects-1),
			A: ms(a.Wall()), B: ms(b.Wall()), Ratio: ratio(a.Wall(), b.Wall()), Target: 1.3},
		{What: "(e) GitHub API calls of that push: with reuse ÷ planned afresh (at most 2 more)",
			A: fmt.Sprint(with), B: fmt.Sprint(without), Ratio: float64(with) / float64(max(without, 1)), Target: float64(without+2) / float64(max(without, 1))},
	}
}

// reusePush sets up the pull request and its two pushes, the first planned and its plans
// uploaded as its artifact, and counts the calls of the second.
func reusePush(ctx context.Context, t Tools) (Sequence, Sequence, error) {
	gh, err := fakeGitHub()
	if err != nil {
		return Sequence{}, Sequence{}, err
	}
	dir := filepath.Join(t.Work, "reuse")
	if _, err := plansRepo(ctx, dir, reuseProjects); err != nil {
		return Sequence{}, Sequence{}, err
	}
	base, err := revParse(ctx, dir)
	if err != nil {
		return Sequence{}, Sequence{}, err
	}
	if err := git(ctx, dir, "checkout", "-q", "-b", "change"); err != nil {
		return Sequence{}, Sequence{}, err
	}
	files := map[string]string{}
	for i := range reuseProjects {
		files[fmt.Sprintf("p%02d/extra.tf", i)] = "resource \"terraform_data\" \"extra\" {\n  input = \"first push\"\n}\n"
	}
	first, err := push(ctx, dir, files)
	if err != nil {
		return Sequence{}, Sequence{}, err
	}
	gh.AddPull(reuseRepo, githubtest.Pull{Number: 42, Title: "change", Author: githubtest.Alice, HeadSHA: first, BaseSHA: base, HeadRef: "change", BaseRef: "main"})
	env, err := reuseEnv(t, gh, 42, base, first, "")
	if err != nil {
		return Sequence{}, Sequence{}, err
	}
	if err := runOnce(ctx, dir, env, t.Tfgate, "plan", "--out", filepath.Join(t.Work, "reuse-first"), "--parallel", "2"); err != nil {
		return Sequence{}, Sequence{}, err
	}
	if err := uploadPlans(gh, filepath.Join(t.Work, "reuse-first"), first); err != nil {
		return Sequence{}, Sequence{}, err
	}
	second, err := push(ctx, dir, map[string]string{reuseChanged + "/extra.tf": "resource \"terraform_data\" \"extra\" {\n  input = \"second push\"\n}\n"})
	if err != nil {
		return Sequence{}, Sequence{}, err
	}
	gh.AddPull(reuseRepo, githubtest.Pull{Number: 42, Title: "change", Author: githubtest.Alice, HeadSHA: second, BaseSHA: base, HeadRef: "change", BaseRef: "main"})
	if env, err = reuseEnv(t, gh, 42, base, second, first); err != nil {
		return Sequence{}, Sequence{}, err
	}
	plan := func(out string, args ...string) []Command {
		return []Command{{Args: []string{"rm", "-rf", out}, Dir: dir, Env: env},
			{Args: append([]string{t.Tfgate, "plan", "--out", out, "--parallel", "2"}, args...), Dir: dir, Env: env}}
	}
	if err := countReuseCalls(ctx, t, gh, dir, env); err != nil {
		return Sequence{}, Sequence{}, err
	}
	alone, err := aloneEnv(ctx, t, gh, dir, base)
	if err != nil {
		return Sequence{}, Sequence{}, err
	}
	a := Sequence{Name: "reusing", Commands: plan(filepath.Join(t.Work, "reuse-a"))}
	b := Sequence{Name: "one alone", Commands: []Command{{Args: []string{"rm", "-rf", filepath.Join(t.Work, "reuse-b")}, Dir: dir, Env: alone},
		{Args: []string{t.Tfgate, "plan", "--out", filepath.Join(t.Work, "reuse-b"), "--parallel", "2"}, Dir: filepath.Join(t.Work, "reuse-alone"), Env: alone}}}
	return a, b, nil
}

// countReuseCalls runs the second push's plan once with reuse and once afresh (--fresh),
// counting each one's GitHub API calls into reuseCalls.
func countReuseCalls(ctx context.Context, t Tools, gh *githubtest.Server, dir string, env []string) error {
	for i, args := range [][]string{nil, {"--fresh"}} {
		gh.ResetCounts()
		if err := runOnce(ctx, dir, env, append([]string{t.Tfgate, "plan", "--out", filepath.Join(t.Work, fmt.Sprint("reuse-count-", i)), "--parallel", "2"}, args...)...); err != nil {
			return err
		}
		reuseCalls[i] = apiCalls(gh)
	}
	return nil
}

// aloneEnv checks out, beside dir, pull request 43 of one commit on base that changes only
// the project the second push changes, and returns the environment of its plan run.
func aloneEnv(ctx context.Context, t Tools, gh *githubtest.Server, dir, base string) ([]string, error) {
	alone := filepath.Join(t.Work, "reuse-alone")
	if err := git(ctx, dir, "worktree", "add", "-q", "-b", "alone", alone, base); err != nil {
		return nil, err
	}
	head, err := push(ctx, alone, map[string]string{reuseChanged + "/extra.tf": "resource \"terraform_data\" \"extra\" {\n  input = \"second push\"\n}\n"})
	if err != nil {
		return nil, err
	}
	gh.AddPull(reuseRepo, githubtest.Pull{Number: 43, Title: "alone", Author: githubtest.Alice, HeadSHA: head, BaseSHA: base, HeadRef: "alone", BaseRef: "main"})
	return reuseEnv(t, gh, 43, base, head, "")
}

// fakeGitHub starts githubtest's fake for the rest of the process. It wants a testing.TB:
// testing.Benchmark lends one outside a test binary, its function kept running until the
// process exits.
func fakeGitHub() (*githubtest.Server, error) {
	got := make(chan *githubtest.Server)
	go testing.Benchmark(func(b *testing.B) {
		var s *githubtest.Server
		defer func() {
			if s == nil {
				got <- nil // New failed the "benchmark"
			}
		}()
		s = githubtest.New(b)
		got <- s
		select {} // serve until the process exits
	})
	if s := <-got; s != nil {
		return s, nil
	}
	return nil, errSkip("the fake GitHub did not start (GitHub's OpenAPI description: make openapi)")
}

// reuseEnv is the environment of a pull_request run of pull request pr at head (a push
// after before, "" for the first), as GitHub Actions sets it.
func reuseEnv(t Tools, gh *githubtest.Server, pr int, base, head, before string) ([]string, error) {
	ev := map[string]any{
		"action": "synchronize", "number": pr,
		"pull_request": map[string]any{"number": pr, "user": map[string]any{"login": githubtest.Alice.Login},
			"head": map[string]any{"sha": head, "ref": "change", "repo": map[string]any{"full_name": reuseRepo}},
			"base": map[string]any{"sha": base, "ref": "main", "repo": map[string]any{"full_name": reuseRepo}}},
		"repository": map[string]any{"full_name": reuseRepo, "name": "infra", "owner": map[string]any{"login": "acme"}},
	}
	if before != "" {
		ev["before"], ev["after"] = before, head
	}
	data, err := json.Marshal(ev)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(t.Work, "reuse-event-"+head[:7]+".json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return nil, err
	}
	return append(t.env(), "GITHUB_ACTIONS=true", "CI=true", "GITHUB_API_URL="+gh.URL(), "GITHUB_SERVER_URL=https://github.example",
		"GITHUB_REPOSITORY="+reuseRepo, "GITHUB_TOKEN="+githubtest.InstallationToken, "GITHUB_RUN_ID=4242", "GITHUB_RUN_ATTEMPT=1",
		"GITHUB_EVENT_NAME=pull_request", "GITHUB_EVENT_PATH="+path, "GITHUB_SHA="+head,
		"GITHUB_STEP_SUMMARY="+filepath.Join(t.Work, "reuse-summary.md"), "GITHUB_OUTPUT="+filepath.Join(t.Work, "reuse-output.txt")), nil
}

// push commits files on the checked-out branch and returns the commit.
func push(ctx context.Context, dir string, files map[string]string) (string, error) {
	if err := writeTree(dir, files); err != nil {
		return "", err
	}
	if err := commitAll(ctx, dir, "push"); err != nil {
		return "", err
	}
	return revParse(ctx, dir)
}

func revParse(ctx context.Context, dir string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", "rev-parse", "HEAD")
	cmd.Dir = dir
	out, err := cmd.Output()
	return strings.TrimSpace(string(out)), err
}

// runOnce runs one command for the setup, its output kept for the error.
func runOnce(ctx context.Context, dir string, env []string, args ...string) error {
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Dir, cmd.Env = dir, env
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}

// uploadPlans uploads an --out directory as the artifact of head's plan run, as
// actions/upload-artifact does.
func uploadPlans(gh *githubtest.Server, out, head string) error {
	files := map[string]string{}
	err := filepath.WalkDir(out, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		rel, _ := filepath.Rel(out, path)
		files[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		return err
	}
	id := gh.AddArtifact(reuseRepo, 4242, "tfgate-plan-"+head, files)
	gh.SetArtifactOrigin(reuseRepo, id, head, false)
	return nil
}

// apiCalls are the API requests since the last reset: the fake's download redirect to its
// storage is not one.
func apiCalls(gh *githubtest.Server) int {
	n := 0
	for route, c := range gh.Counts() {
		if !strings.Contains(route, "/_githubtest/") {
			n += c
		}
	}
	return n
}
