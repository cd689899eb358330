package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/ci"
	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/github/githubtest"
	"github.com/tfgate/tfgate/internal/matrixresult"
	"github.com/tfgate/tfgate/internal/plan"
	"github.com/tfgate/tfgate/internal/report"
	"github.com/tfgate/tfgate/internal/stage"
	"github.com/tfgate/tfgate/internal/testenv"
)

var (
	matrixHead = strings.Repeat("a", 40)
	matrixBase = strings.Repeat("b", 40)
)

// matrixRepo is a repository of n projects p000, p001, … (no git: discovery only).
func matrixRepo(t *testing.T, n int) string {
	files := map[string]string{}
	for i := range n {
		files[fmt.Sprintf("p%03d/main.tf", i)] = `resource "terraform_data" "x" {}` + "\n"
	}
	return testenv.WriteTree(t, files)
}

// matrixProject is one planned project whose plan creates a resource.
func matrixProject(name string) report.Project {
	return report.Project{Name: name, Dir: name, Workspace: "default", Status: report.StatusPlanned,
		Changes: &plan.Changes{TerraformVersion: "1.5.7", Summary: plan.Summary{Add: 1},
			Resources: []plan.Resource{{Address: "terraform_data.x", Mode: "managed", Type: "terraform_data", Name: "x", Action: plan.ActionCreate,
				Attributes: []plan.Attribute{{Path: "input", Before: plan.Value{Text: "null", Kind: plan.KindNull}, After: plan.Value{Text: `"` + name + `"`, Kind: plan.KindKnown}}}}}}}
}

// writeJob writes what a matrix job's `plan --changed NAME --out DIR` leaves, for the
// pull request under review unless f says otherwise.
func writeJob(t *testing.T, dir string, f matrixresult.File, ps ...report.Project) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if f.Commit == "" {
		f.Commit = matrixHead
	}
	if f.PR == 0 {
		f.PR = 3
	}
	run := report.Run{Kind: report.KindPlan, Base: matrixBase, MergeBase: "bbbbbbb", Projects: ps}
	if f.Stopped != "" {
		run = report.Run{Kind: report.KindPlan}
	}
	if err := matrixresult.Write(dir, f, run); err != nil {
		t.Fatal(err)
	}
}

func matrixGitHub(t *testing.T, srv *githubtest.Server, dir string) *GitHubRun {
	api, err := github.New(github.Options{BaseURL: srv.URL(), Token: githubtest.InstallationToken})
	if err != nil {
		t.Fatal(err)
	}
	return &GitHubRun{API: api,
		Env: ci.GitHub{Actions: true, Repository: "acme/infra", StepSummary: filepath.Join(dir, "summary.md"), Output: filepath.Join(dir, "output.txt"),
			ServerURL: "https://github.example", RunID: "1"},
		Event: ci.Event{Name: "pull_request", Owner: "acme", Repo: "infra", PRNumber: 3, HeadSHA: matrixHead, BaseSHA: matrixBase}}
}

// The API calls of a matrix run are those of one plan run, whatever the number of
// projects: the matrix jobs make none (--publish none), and publish makes the pending
// status (which also says who tfgate is), one page of comments, the comment — one call per
// part, and a big review is split in parts by size, not by project — the project labels (one
// call) and the status.
func TestPublishAPICallsDoNotGrow(t *testing.T) {
	counts := map[int]int{}
	for _, n := range []int{1, 20, 500} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			root := matrixRepo(t, n)
			results := t.TempDir()
			var expect []Expected
			for i := range n {
				name := fmt.Sprintf("p%03d", i)
				writeJob(t, filepath.Join(results, "tfgate-result-"+fmt.Sprint(i)), matrixresult.File{}, matrixProject(name))
				expect = append(expect, Expected{Name: name, Dir: name, Workspace: "default"})
			}
			srv := githubtest.New(t)
			srv.AddPull("acme/infra", githubtest.Pull{Number: 3, HeadSHA: matrixHead, BaseSHA: matrixBase})
			req := PublishRequest{Env: stage.Env{Root: root, Config: config.Default()}, Dirs: []string{results}, Expect: expect, GitHub: matrixGitHub(t, srv, t.TempDir())}
			run, err := RunPublish(t.Context(), req)
			if err != nil {
				t.Fatal(err)
			}
			if len(run.Projects) != n || len(run.Unfinished()) != 0 {
				t.Fatalf("%d projects (%d unfinished), want %d planned", len(run.Projects), len(run.Unfinished()), n)
			}
			parts := len(srv.Comments("acme/infra", 3))
			counts[n] = srv.Requests()
			t.Logf("%d projects: %d API requests (%d comment parts): %v", n, srv.Requests(), parts, srv.Counts())
			if want := 4 + parts; srv.Requests() != want {
				t.Errorf("%d requests, want %d: pending status, list comments, %d comment parts, the project labels, status", srv.Requests(), want, parts)
			}
			// One label per project, up to 50; beyond, the one label that relates the pull
			// request to every change (GitHub allows 100 labels on it).
			if labels := srv.PullLabels("acme/infra", 3); n <= 50 && len(labels) != n || n > 50 && (len(labels) != 1 || labels[0] != "tfgate:*") {
				t.Errorf("%d projects: labels %q", n, labels)
			}
			// Published again (a re-run): the comments are found again and, unchanged, left
			// alone — pending status, list, the labels (this event lists none), status.
			srv.ResetCounts()
			if _, err := RunPublish(t.Context(), req); err != nil {
				t.Fatal(err)
			}
			if srv.Requests() != 4 || len(srv.Comments("acme/infra", 3)) != parts {
				t.Errorf("again: %d requests, %d comments; want 4, %d", srv.Requests(), len(srv.Comments("acme/infra", 3)), parts)
			}
		})
	}
	if len(counts) < 3 {
		return // a size was skipped (what it needs is missing): nothing to compare
	}
	// 500 such projects make a review of about 100 KB: two comment parts, one call more.
	if counts[1] != 5 || counts[20] != 5 || counts[500] != 6 {
		t.Errorf("requests for 1, 20 and 500 projects: %d, %d, %d; want 5, 5, 6", counts[1], counts[20], counts[500])
	}
}

// The merge: project order, whatever the order of the results; a project expected without
// a result, one two results hold, one from another pull request and one whose job stopped
// before planning are all failed, and an unreadable result is a note and an error.
func TestPublishMerge(t *testing.T) {
	root := matrixRepo(t, 7)
	results := t.TempDir()
	writeJob(t, filepath.Join(results, "a"), matrixresult.File{Asked: []string{"p004"}}, matrixProject("p004"))
	writeJob(t, filepath.Join(results, "b"), matrixresult.File{Asked: []string{"p001"}}, matrixProject("p001"))
	writeJob(t, filepath.Join(results, "c"), matrixresult.File{Asked: []string{"p001"}}, matrixProject("p001"))        // again
	writeJob(t, filepath.Join(results, "d"), matrixresult.File{Asked: []string{"p002"}, PR: 9}, matrixProject("p002")) // another PR
	writeJob(t, filepath.Join(results, "e"), matrixresult.File{Asked: []string{"p003"}, Stopped: "policies/x.rego:1: rego_parse_error"})
	if err := os.MkdirAll(filepath.Join(results, "f"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(results, "f", matrixresult.FileName), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	writeJob(t, filepath.Join(results, "g"), matrixresult.File{Asked: []string{"p000"}}, matrixProject("p000"))
	dir := t.TempDir()
	gh := matrixGitHub(t, githubtest.New(t), dir)
	gh.API = nil // files only
	run, err := RunPublish(t.Context(), PublishRequest{Env: stage.Env{Root: root, Config: config.Default()}, Dirs: []string{results}, GitHub: gh,
		Expect: []Expected{{Name: "p005", Dir: "p005", Workspace: "default"}}, ExpectNames: []string{"p000", "p004"}})
	if err == nil || !strings.Contains(err.Error(), "1 result could not be used") {
		t.Errorf("err = %v, want the unreadable result named", err)
	}
	var got []string
	for _, p := range run.Projects {
		got = append(got, p.Name+" "+string(p.Status))
	}
	want := []string{"p000 planned", "p001 failed", "p002 failed", "p003 failed", "p004 planned", "p005 failed"}
	if !slices.Equal(got, want) {
		t.Fatalf("projects %q, want %q", got, want)
	}
	for i, w := range map[int]string{1: "two results hold this project", 2: "planned for pull request #9", 3: "rego_parse_error", 5: "no result"} {
		if !strings.Contains(run.Projects[i].Error, w) {
			t.Errorf("%s: error %q, want %q", run.Projects[i].Name, run.Projects[i].Error, w)
		}
	}
	if run.Base != matrixBase || run.MergeBase != "bbbbbbb" {
		t.Errorf("base %q, merge base %q: want the matrix jobs'", run.Base, run.MergeBase)
	}
	if len(run.Notes) != 1 || !strings.Contains(run.Notes[0], filepath.Join(results, "f", matrixresult.FileName)) {
		t.Errorf("notes %q, want the unreadable result", run.Notes)
	}
	summary, _ := os.ReadFile(filepath.Join(dir, "summary.md"))
	if !strings.Contains(string(summary), "no result") {
		t.Errorf("the job summary does not show the missing result:\n%s", summary)
	}
}

// --out gathers the bundles into one directory, as one plan --out lays them out.
func TestPublishGathersBundles(t *testing.T) {
	root := matrixRepo(t, 2)
	results := t.TempDir()
	for _, name := range []string{"p000", "p001"} {
		job := filepath.Join(results, name+"-job")
		p := matrixProject(name)
		p.Bundle = filepath.Join(job, name, "plan.tfplan")
		if err := os.MkdirAll(filepath.Dir(p.Bundle), 0o700); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"plan.tfplan", "manifest.json"} {
			if err := os.WriteFile(filepath.Join(job, name, f), []byte(name+f), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		writeJob(t, job, matrixresult.File{}, p)
	}
	out := filepath.Join(t.TempDir(), "bundles")
	run, err := RunPublish(t.Context(), PublishRequest{Env: stage.Env{Root: root, Config: config.Default()}, Dirs: []string{results}, Out: out})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range run.Projects {
		if want := filepath.Join(out, p.Name, "plan.tfplan"); p.Bundle != want {
			t.Errorf("%s: bundle %s, want %s", p.Name, p.Bundle, want)
		}
		data, err := os.ReadFile(filepath.Join(out, p.Name, "manifest.json"))
		if err != nil || string(data) != p.Name+"manifest.json" {
			t.Errorf("%s: manifest %q, %v", p.Name, data, err)
		}
	}
	if _, err := RunPublish(context.Background(), PublishRequest{Env: stage.Env{Root: root, Config: config.Default()}, Dirs: []string{results}, Out: out}); err == nil {
		t.Error("gathered into a directory that is not empty")
	}
}

// A matrix job that stops before planning (here: no git to detect changes with) leaves a
// result saying why, for publish to show on its project; another run that stops leaves
// --out as it was.
func TestStoppedRunResult(t *testing.T) {
	root := matrixRepo(t, 1)
	out := filepath.Join(t.TempDir(), "out")
	_, err := RunPlan(t.Context(), PlanRequest{Env: stage.Env{Root: root, Config: config.Default()}, Names: []string{"p000"}, Changed: true, OutDir: out})
	if err == nil {
		t.Fatal("planned changes without git")
	}
	r, rerr := matrixresult.Read(filepath.Join(out, matrixresult.FileName))
	if rerr != nil {
		t.Fatal(rerr)
	}
	if r.Stopped != err.Error() || !slices.Equal(r.Asked, []string{"p000"}) || r.Decoded.Projects != nil {
		t.Errorf("result %+v, want stopped with %q for p000", r.File, err)
	}
	plain := filepath.Join(t.TempDir(), "plain")
	if _, err := RunPlan(t.Context(), PlanRequest{Env: stage.Env{Root: root, Config: config.Default()}, OutDir: plain}); err == nil {
		t.Fatal("planned changes without git")
	}
	if _, err := os.Stat(plain); !os.IsNotExist(err) {
		t.Errorf("--out of a plain run that stopped: %v, want none", err)
	}
	// publish: the project failed, with the job's reason.
	run, err := RunPublish(t.Context(), PublishRequest{Env: stage.Env{Root: root, Config: config.Default()}, Dirs: []string{out}})
	if err != nil || len(run.Projects) != 1 || run.Projects[0].Status != report.StatusFailed || run.Projects[0].Error != r.Stopped {
		t.Errorf("published %+v (%v), want p000 failed with %q", run.Projects, err, r.Stopped)
	}
}

// --matrix reads what `projects --format matrix` writes, and nothing else.
func TestReadMatrix(t *testing.T) {
	dir := t.TempDir()
	for name, tt := range map[string]struct {
		content string
		want    []Expected
	}{
		"matrix": {`{"include":[{"project":"a","dir":"a","workspace":"default"},{"project":"b","dir":"x","workspace":"prod"}]}` + "\n",
			[]Expected{{"a", "a", "default"}, {"b", "x", "prod"}}},
		"empty":      {`{"include":[]}`, []Expected{}},
		"no include": {`{"projects":[]}`, nil},
		"no project": {`{"include":[{"dir":"a"}]}`, nil},
		"array":      {`[{"name":"a"}]`, nil},
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name+".json")
			if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			got, err := ReadMatrix(path)
			if tt.want == nil {
				if err == nil {
					t.Fatalf("read %v", got)
				}
				return
			}
			if err != nil || !slices.Equal(got, tt.want) {
				t.Errorf("%v, %v; want %v", got, err, tt.want)
			}
		})
	}
}
