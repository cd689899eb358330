package ci

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	headSHA = "0123456789abcdef0123456789abcdef01234567"
	baseSHA = "89abcdef0123456789abcdef0123456789abcdef"
	envSHA  = "fedcba9876543210fedcba9876543210fedcba98"
)

func actionsEnv(event, file string) map[string]string {
	return map[string]string{
		"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": event, "GITHUB_EVENT_PATH": filepath.Join("testdata", "events", file),
		"GITHUB_REPOSITORY": "acme/infra", "GITHUB_SHA": envSHA, "GITHUB_RUN_ID": "4242", "GITHUB_RUN_ATTEMPT": "2",
		"GITHUB_SERVER_URL": "https://github.example.com/", "GITHUB_API_URL": "https://github.example.com/api/v3",
		"GITHUB_STEP_SUMMARY": "/tmp/summary", "GITHUB_OUTPUT": "/tmp/output", "GITHUB_TOKEN": "ghs_secret",
	}
}

func TestGitHubFromEnv(t *testing.T) {
	env := actionsEnv("push", "push.json")
	g := GitHubFromEnv(func(k string) string { return env[k] })
	want := GitHub{Actions: true, EventName: "push", EventPath: "testdata/events/push.json", Repository: "acme/infra",
		SHA: envSHA, APIURL: "https://github.example.com/api/v3", ServerURL: "https://github.example.com", RunID: "4242",
		RunAttempt: "2", StepSummary: "/tmp/summary", Output: "/tmp/output", Token: "ghs_secret"}
	if g != want {
		t.Errorf("GitHubFromEnv =\n%#v, want\n%#v", g, want)
	}
	if g.Owner() != "acme" || g.Name() != "infra" {
		t.Errorf("owner/name = %q/%q", g.Owner(), g.Name())
	}
	if got := g.RunURL(); got != "https://github.example.com/acme/infra/actions/runs/4242/attempts/2" {
		t.Errorf("RunURL = %q", got)
	}
	for _, s := range []string{fmt.Sprint(g), fmt.Sprintf("%+v", g), fmt.Sprintf("%#v", g)} {
		if strings.Contains(s, "ghs_secret") {
			t.Errorf("the token is printed: %s", s)
		}
	}

	empty := GitHubFromEnv(func(string) string { return "" })
	if empty.Actions || empty.APIURL != "https://api.github.com" || empty.ServerURL != "https://github.com" || empty.RunURL() != "" {
		t.Errorf("defaults: %+v, RunURL %q", empty, empty.RunURL())
	}
	// Env carries it too, read once with the rest.
	if e := FromEnv(func(k string) string { return env[k] }); e.GitHub != want {
		t.Errorf("Env.GitHub = %+v", e.GitHub)
	}
}

func TestRunURL(t *testing.T) {
	tests := []struct {
		repo, id, attempt, want string
	}{
		{"acme/infra", "1", "", "https://github.com/acme/infra/actions/runs/1"},
		{"acme/infra", "1", "3", "https://github.com/acme/infra/actions/runs/1/attempts/3"},
		{"acme/infra", "", "3", ""},
		{"acme", "1", "", ""},
		{"acme/infra", "1/../../x", "", ""},
		{"acme/infra", "1", "2?x", "https://github.com/acme/infra/actions/runs/1"},
	}
	for _, tt := range tests {
		g := GitHub{ServerURL: "https://github.com", Repository: tt.repo, RunID: tt.id, RunAttempt: tt.attempt}
		if got := g.RunURL(); got != tt.want {
			t.Errorf("RunURL(%q, %q, %q) = %q, want %q", tt.repo, tt.id, tt.attempt, got, tt.want)
		}
	}
}

func TestEvent(t *testing.T) {
	tests := []struct {
		event, file string
		want        Event
	}{
		{"pull_request", "pull_request.json", Event{Name: "pull_request", Action: "synchronize", Owner: "acme", Repo: "infra", DefaultBranch: "main",
			PRNumber: 42, HeadSHA: headSHA, BaseSHA: baseSHA, HeadRef: "feature/x", BaseRef: "main", Author: "alice", HeadRepo: "acme/infra"}},
		{"pull_request", "pull_request_fork.json", Event{Name: "pull_request", Action: "opened", Owner: "acme", Repo: "infra", DefaultBranch: "main",
			PRNumber: 7, HeadSHA: headSHA, BaseSHA: baseSHA, HeadRef: "main", BaseRef: "main", Author: "mallory", HeadRepo: "mallory/infra", Fork: true}},
		{"pull_request_target", "pull_request_fork.json", Event{Name: "pull_request_target", Action: "opened", Owner: "acme", Repo: "infra", DefaultBranch: "main",
			PRNumber: 7, HeadSHA: headSHA, BaseSHA: baseSHA, HeadRef: "main", BaseRef: "main", Author: "mallory", HeadRepo: "mallory/infra", Fork: true}},
		{"pull_request_target", "pull_request_target_deleted_fork.json", Event{Name: "pull_request_target", Action: "synchronize", Owner: "acme", Repo: "infra", DefaultBranch: "main",
			PRNumber: 8, HeadSHA: headSHA, BaseSHA: baseSHA, HeadRef: "patch-1", BaseRef: "main", Author: "ghost", Fork: true}},
		{"pull_request_review", "pull_request_review.json", Event{Name: "pull_request_review", Action: "submitted", Owner: "acme", Repo: "infra", DefaultBranch: "main",
			PRNumber: 42, HeadSHA: headSHA, BaseSHA: baseSHA, HeadRef: "feature/x", BaseRef: "main", Author: "alice", HeadRepo: "acme/infra",
			Review: &Review{State: "approved", Author: "bob", CommitID: headSHA}}},
		{"push", "push.json", Event{Name: "push", Owner: "acme", Repo: "infra", DefaultBranch: "main",
			HeadSHA: headSHA, BaseSHA: baseSHA, HeadRef: "refs/heads/main", Author: "carol"}},
		{"push", "push_new_branch.json", Event{Name: "push", Owner: "acme", Repo: "infra", HeadSHA: headSHA, HeadRef: "refs/heads/release", Author: "carol"}},
		{"merge_group", "merge_group.json", Event{Name: "merge_group", Action: "checks_requested", Owner: "acme", Repo: "infra", DefaultBranch: "main",
			PRNumber: 42, HeadSHA: headSHA, BaseSHA: baseSHA, HeadRef: "refs/heads/gh-readonly-queue/main/pr-42-" + baseSHA, BaseRef: "refs/heads/main",
			Author: "github-merge-queue[bot]"}},
		{"schedule", "schedule.json", Event{Name: "schedule", Owner: "acme", Repo: "infra", DefaultBranch: "main", HeadSHA: envSHA}},
		{"workflow_dispatch", "workflow_dispatch.json", Event{Name: "workflow_dispatch", Owner: "acme", Repo: "infra", DefaultBranch: "main", HeadSHA: envSHA, Author: "dave"}},
	}
	for _, tt := range tests {
		t.Run(tt.event+"/"+tt.file, func(t *testing.T) {
			env := actionsEnv(tt.event, tt.file)
			got, err := GitHubFromEnv(func(k string) string { return env[k] }).Event()
			if err != nil {
				t.Fatal(err)
			}
			gotReview, wantReview := got.Review, tt.want.Review
			got.Review, tt.want.Review = nil, nil
			if got != tt.want || (gotReview == nil) != (wantReview == nil) || gotReview != nil && *gotReview != *wantReview {
				t.Errorf("Event =\n%+v %+v\nwant\n%+v %+v", got, gotReview, tt.want, wantReview)
			}
		})
	}
}

// A payload tfgate cannot use is an error that names the file and what is wrong.
func TestEventErrors(t *testing.T) {
	tests := []struct {
		event, file, want string
	}{
		{"pull_request", "truncated.json", "truncated.json: pull_request event payload is not valid JSON"},
		{"pull_request", "missing.json", "read the pull_request event payload: open testdata/events/missing.json"},
		{"pull_request", "push.json", "push.json: pull_request event payload: no pull_request object"},
		{"pull_request", "pull_request_no_head.json", "pull_request.head.sha is missing"},
		{"pull_request_review", "pull_request.json", "no review object"},
		{"merge_group", "merge_group_missing.json", "no merge_group object"},
		{"push", "schedule.json", "after is missing"},
		{"issue_comment", "pull_request.json", `event "issue_comment" is not one tfgate handles`},
		{"", "pull_request.json", "GITHUB_EVENT_NAME is not set"},
		{"push", "", "GITHUB_EVENT_PATH is not set"},
	}
	for _, tt := range tests {
		env := actionsEnv(tt.event, tt.file)
		if tt.file == "" {
			delete(env, "GITHUB_EVENT_PATH")
		}
		_, err := GitHubFromEnv(func(k string) string { return env[k] }).Event()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s %s: err = %v, want it to contain %q", tt.event, tt.file, err, tt.want)
		}
	}
}

func FuzzParseEvent(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "events", "*.json"))
	for i, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(Events[i%len(Events)], data)
	}
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		ev, err := ParseEvent(name, data)
		if err != nil {
			if ev != (Event{}) {
				t.Fatalf("error %v with a non-zero event %+v", err, ev)
			}
			return
		}
		switch name {
		case "pull_request", "pull_request_target", "pull_request_review":
			if ev.PRNumber <= 0 || !isSHA(ev.HeadSHA) || !isSHA(ev.BaseSHA) {
				t.Fatalf("pull request event without number or SHAs: %+v", ev)
			}
			if ev.HeadRepo == "" && !ev.Fork {
				t.Fatalf("a pull request from an unknown repository is not taken for a fork: %+v", ev)
			}
		case "push", "merge_group":
			if !isSHA(ev.HeadSHA) {
				t.Fatalf("%s event without a head SHA: %+v", name, ev)
			}
		}
	})
}
