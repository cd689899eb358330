package ci

import (
	"fmt"
	"net/url"
	"os"
	"strings"
)

// GitHub is the GitHub Actions environment of one job, read once (GitHubFromEnv) by the
// command layer. URLs default to github.com's when the variables are unset.
type GitHub struct {
	Actions     bool   // GITHUB_ACTIONS=true
	EventName   string // GITHUB_EVENT_NAME, e.g. "pull_request"
	EventPath   string // GITHUB_EVENT_PATH: the webhook payload that triggered the run
	Repository  string // GITHUB_REPOSITORY, "owner/name"
	SHA         string // GITHUB_SHA: the commit the workflow runs on
	APIURL      string // GITHUB_API_URL, default https://api.github.com
	ServerURL   string // GITHUB_SERVER_URL, default https://github.com
	RunID       string // GITHUB_RUN_ID
	RunAttempt  string // GITHUB_RUN_ATTEMPT
	StepSummary string // GITHUB_STEP_SUMMARY: file for the job summary, "" outside Actions
	Output      string // GITHUB_OUTPUT: file for step outputs, "" outside Actions
	Token       Token  // GITHUB_TOKEN

	// Time limits of GitHub API use, Go durations ("" = tfgate's defaults): one request's
	// attempt (TFGATE_GITHUB_TIMEOUT) and all of a run's publishing (TFGATE_PUBLISH_TIMEOUT).
	RequestTimeout, PublishTimeout string
}

// Token is a secret: it formats as "(redacted)" (or "" when empty) so that printing a
// GitHub value never leaks it. Use string(t) to send it.
type Token string

func (t Token) String() string {
	if t == "" {
		return ""
	}
	return "(redacted)"
}

// GoString keeps %#v from printing the token too.
func (t Token) GoString() string { return `"` + t.String() + `"` }

// GitHubFromEnv reads the GitHub Actions environment through getenv.
func GitHubFromEnv(getenv func(string) string) GitHub {
	or := func(v, def string) string {
		if v == "" {
			return def
		}
		return v
	}
	return GitHub{
		Actions:     getenv("GITHUB_ACTIONS") == "true",
		EventName:   getenv("GITHUB_EVENT_NAME"),
		EventPath:   getenv("GITHUB_EVENT_PATH"),
		Repository:  getenv("GITHUB_REPOSITORY"),
		SHA:         getenv("GITHUB_SHA"),
		APIURL:      strings.TrimRight(or(getenv("GITHUB_API_URL"), "https://api.github.com"), "/"),
		ServerURL:   strings.TrimRight(or(getenv("GITHUB_SERVER_URL"), "https://github.com"), "/"),
		RunID:       getenv("GITHUB_RUN_ID"),
		RunAttempt:  getenv("GITHUB_RUN_ATTEMPT"),
		StepSummary: getenv("GITHUB_STEP_SUMMARY"),
		Output:      getenv("GITHUB_OUTPUT"),
		Token:       Token(getenv("GITHUB_TOKEN")),

		RequestTimeout: getenv("TFGATE_GITHUB_TIMEOUT"),
		PublishTimeout: getenv("TFGATE_PUBLISH_TIMEOUT"),
	}
}

// Owner and Name split Repository ("" when it is not "owner/name").
func (g GitHub) Owner() string { o, _ := splitRepo(g.Repository); return o }

// Name is the repository's name without its owner.
func (g GitHub) Name() string { _, n := splitRepo(g.Repository); return n }

func splitRepo(full string) (owner, name string) {
	o, n, ok := strings.Cut(full, "/")
	if !ok || o == "" || n == "" || strings.Contains(n, "/") {
		return "", ""
	}
	return o, n
}

// RunURL links to this run (and attempt): SERVER/OWNER/REPO/actions/runs/ID/attempts/N.
// It is "" when the server, repository or run id is unknown.
func (g GitHub) RunURL() string {
	owner, name := splitRepo(g.Repository)
	if g.ServerURL == "" || owner == "" || g.RunID == "" || !digits(g.RunID) {
		return ""
	}
	u := g.ServerURL + "/" + url.PathEscape(owner) + "/" + url.PathEscape(name) + "/actions/runs/" + g.RunID
	if g.RunAttempt != "" && digits(g.RunAttempt) {
		u += "/attempts/" + g.RunAttempt
	}
	return u
}

func digits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

// Event reads and parses the payload at EventPath. Events without a commit of their own
// in the payload (schedule, workflow_dispatch) take GITHUB_SHA as their head, and the
// repository falls back to GITHUB_REPOSITORY.
func (g GitHub) Event() (Event, error) {
	if g.EventName == "" {
		return Event{}, fmt.Errorf("GITHUB_EVENT_NAME is not set: run tfgate from a GitHub Actions workflow, or without GitHub publishing")
	}
	if g.EventPath == "" {
		return Event{}, fmt.Errorf("GITHUB_EVENT_PATH is not set: the %s event's payload cannot be read", g.EventName)
	}
	data, err := os.ReadFile(g.EventPath)
	if err != nil {
		return Event{}, fmt.Errorf("read the %s event payload: %w", g.EventName, err)
	}
	ev, err := ParseEvent(g.EventName, data)
	if err != nil {
		return Event{}, fmt.Errorf("%s: %w", g.EventPath, err)
	}
	if ev.HeadSHA == "" {
		ev.HeadSHA = g.SHA
	}
	if ev.Owner == "" {
		ev.Owner, ev.Repo = splitRepo(g.Repository)
	}
	return ev, nil
}
