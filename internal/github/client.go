// Package github is tfgate's GitHub client: go-github behind the narrow API interface of
// the calls tfgate makes (comments, statuses, reviews, permissions, issues, labels,
// artifacts, rules), with pagination, bounded requests, one retry policy (retry.go) and
// rate-limit handling, and GitHub's limits and commit status states (limits.go, state.go).
// It never reads the environment: the caller passes GITHUB_API_URL and the token in
// Options. What tfgate publishes, and which comments and issues are its own, is
// internal/notify's; the fake GitHub tests use is githubtest.
package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	gh "github.com/google/go-github/v60/github"
)

// Repo is a repository, "owner/name".
type Repo struct{ Owner, Name string }

func (r Repo) String() string { return r.Owner + "/" + r.Name }

// ParseRepo reads "owner/name" (GITHUB_REPOSITORY).
func ParseRepo(s string) (Repo, error) {
	owner, name, ok := strings.Cut(s, "/")
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		return Repo{}, fmt.Errorf("repository %q is not owner/name", s)
	}
	return Repo{Owner: owner, Name: name}, nil
}

// User is a GitHub account.
type User struct {
	Login string
	Type  string // "User", "Bot" or "Organization"
}

// Comment is an issue or pull request comment.
type Comment struct {
	ID        int64
	Body      string
	Author    User
	HTMLURL   string
	UpdatedAt time.Time
}

// Status is a commit status; State is pending, success, failure or error.
type Status struct {
	State       string
	Context     string
	Description string
	TargetURL   string
}

// Review is a pull request review.
type Review struct {
	ID          int64
	User        User
	State       string // APPROVED, CHANGES_REQUESTED, COMMENTED, DISMISSED, PENDING
	CommitID    string
	SubmittedAt time.Time
}

// PullRequest is a pull request.
type PullRequest struct {
	Number int
	Title  string
	State  string // open or closed
	Merged bool
	// MergeCommitSHA is the merge's commit when Merged. For an open pull request GitHub
	// reports its test merge commit here, which never lands: trust it only when Merged.
	MergeCommitSHA string
	HeadSHA        string
	HeadRef        string
	HeadRepo       string // owner/name; "" when the head repository was deleted
	BaseRef        string
	BaseSHA        string
	Author         User
	// Fork is set when the head repository is not the base repository, or is unknown (a
	// deleted fork): such a pull request's code is never trusted.
	Fork bool
}

// Issue is an issue (never a pull request: ListIssues leaves those out).
type Issue struct {
	Number  int
	Title   string
	Body    string
	State   string
	Labels  []string
	Author  User
	HTMLURL string
}

// IssueRequest creates or edits an issue; nil fields are left as they are.
type IssueRequest struct {
	Title  *string
	Body   *string
	State  *string
	Labels *[]string
}

// IssueFilter selects issues; empty fields do not filter (State "" is open).
type IssueFilter struct {
	State   string // open, closed or all
	Labels  []string
	Creator string
}

// Label is a repository label.
type Label struct {
	Name        string
	Color       string // hex without '#'
	Description string
}

// Artifact is a GitHub Actions artifact.
type Artifact struct {
	ID        int64
	Name      string
	RunID     int64
	SizeBytes int64
	Expired   bool
	CreatedAt time.Time
	// The workflow run that uploaded it: the repository it ran in, the repository of the
	// commit it ran for (another one: a fork's pull request) and that commit.
	RepositoryID, HeadRepositoryID int64
	HeadSHA                        string
}

// FromFork reports whether a fork's workflow run uploaded the artifact: its code, not the
// repository's, chose the artifact's name and content.
func (a Artifact) FromFork() bool {
	return a.HeadRepositoryID != 0 && a.RepositoryID != 0 && a.HeadRepositoryID != a.RepositoryID
}

// API is every GitHub call tfgate makes. Client implements it; tests use Client against
// githubtest. Every List call returns all pages.
type API interface {
	AuthenticatedUser(ctx context.Context) (User, error)

	ListIssueComments(ctx context.Context, repo Repo, number int) ([]Comment, error)
	CreateIssueComment(ctx context.Context, repo Repo, number int, body string) (Comment, error)
	EditIssueComment(ctx context.Context, repo Repo, id int64, body string) (Comment, error)
	DeleteIssueComment(ctx context.Context, repo Repo, id int64) error

	CreateStatus(ctx context.Context, repo Repo, sha string, st Status) (creator User, err error)
	// ListStatuses lists the statuses of commit sha, newest first.
	ListStatuses(ctx context.Context, repo Repo, sha string) ([]CommitStatus, error)
	ListReviews(ctx context.Context, repo Repo, number int) ([]Review, error)
	CollaboratorPermission(ctx context.Context, repo Repo, login string) (string, error)
	ListPullFiles(ctx context.Context, repo Repo, number int) ([]string, error)
	GetPull(ctx context.Context, repo Repo, number int) (PullRequest, error)
	// ListCommitPulls lists the pull requests associated with commit sha: on the default
	// branch the merged one that brought it in, elsewhere the open and merged ones with it.
	ListCommitPulls(ctx context.Context, repo Repo, sha string) ([]PullRequest, error)
	// ListMatchingRefs lists the references whose names start with refs/ + prefix
	// (heads/gh-readonly-queue/main/: a merge queue's branches).
	ListMatchingRefs(ctx context.Context, repo Repo, prefix string) ([]Ref, error)
	// TeamMembership reports whether login is an active member of org/team. A token that
	// cannot read the team gets an error that errors.Is ErrTeamUnreadable, never false.
	TeamMembership(ctx context.Context, org, team, login string) (active bool, err error)

	ListIssues(ctx context.Context, repo Repo, f IssueFilter) ([]Issue, error)
	CreateIssue(ctx context.Context, repo Repo, req IssueRequest) (Issue, error)
	EditIssue(ctx context.Context, repo Repo, number int, req IssueRequest) (Issue, error)
	ListLabels(ctx context.Context, repo Repo) ([]Label, error)
	CreateLabel(ctx context.Context, repo Repo, l Label) error

	// The calls that keep open pull requests told when their plans go stale (pipeline/run_notify_stale.go):
	// project labels on pull requests, the open ones of a label, a re-plan workflow.

	// AddLabels adds labels to issue or pull request number (GitHub creates missing ones).
	AddLabels(ctx context.Context, repo Repo, number int, labels []string) error
	// ListIssueLabels lists the label names on issue or pull request number.
	ListIssueLabels(ctx context.Context, repo Repo, number int) ([]string, error)
	// RemoveLabel removes label from issue or pull request number; one it does not carry is
	// not an error.
	RemoveLabel(ctx context.Context, repo Repo, number int, label string) error
	// ListLabelledPulls lists the open pull requests carrying label, by number.
	ListLabelledPulls(ctx context.Context, repo Repo, label string) ([]int, error)
	// DispatchWorkflow starts workflow (its file name or id) on ref with inputs
	// (workflow_dispatch). A token without actions: write gets an error whose HTTPStatus
	// is 403.
	DispatchWorkflow(ctx context.Context, repo Repo, workflow, ref string, inputs map[string]any) error

	// ListArtifacts lists artifacts called name ("" for all) of run runID (0 for the
	// whole repository), newest first.
	ListArtifacts(ctx context.Context, repo Repo, name string, runID int64) ([]Artifact, error)
	// DownloadArtifact returns the artifact's zip archive.
	DownloadArtifact(ctx context.Context, repo Repo, id int64) ([]byte, error)
	// GetWorkflowRun is GitHub's account of workflow run id (notify-stale checks the run
	// behind a record of what it told).
	GetWorkflowRun(ctx context.Context, repo Repo, id int64) (WorkflowRun, error)
}

// Options configure a Client. Zero values take the defaults shown.
type Options struct {
	BaseURL      string            // GITHUB_API_URL; default https://api.github.com
	Token        string            // GITHUB_TOKEN or a personal token
	Login        string            // the identity tfgate posts as, when configured (skips GET /user)
	Transport    http.RoundTripper // default http.DefaultTransport
	MaxAttempts  int               // attempts per request for 5xx; default 4
	Backoff      time.Duration     // first wait after a 5xx, doubled each time; default 1s
	MaxWait      time.Duration     // longest single wait for a rate limit; default 60s
	MaxRetryTime time.Duration     // longest total waiting per request; default 2m
	MaxArtifact  int64             // largest artifact download; default 512 MiB

	// RequestTimeout bounds one attempt of an API call, its body included (for a download
	// from storage: each read's progress); a stall is retried like a 5xx. Default 30s.
	RequestTimeout time.Duration
}

func (o Options) withDefaults() Options {
	if o.BaseURL == "" {
		o.BaseURL = "https://api.github.com"
	}
	if o.Transport == nil {
		o.Transport = http.DefaultTransport
	}
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = 4
	}
	if o.Backoff <= 0 {
		o.Backoff = time.Second
	}
	if o.MaxWait <= 0 {
		o.MaxWait = 60 * time.Second
	}
	if o.MaxRetryTime <= 0 {
		o.MaxRetryTime = 2 * time.Minute
	}
	if o.RequestTimeout <= 0 {
		o.RequestTimeout = 30 * time.Second
	}
	if o.MaxArtifact <= 0 {
		o.MaxArtifact = 512 << 20
	}
	return o
}

// Client is the go-github implementation of API.
type Client struct {
	gh    *gh.Client
	plain *http.Client // the same transport stack without the token, for signed redirect targets
	o     Options
	n     counters

	identityMu sync.Mutex
	identity   *Identity
}

var _ API = (*Client)(nil)

// New returns a client for the API at o.BaseURL.
func New(o Options) (*Client, error) {
	o = o.withDefaults()
	base, err := url.Parse(o.BaseURL)
	if err != nil || base.Scheme == "" || base.Host == "" {
		return nil, fmt.Errorf("GitHub API URL %q is not an absolute URL", o.BaseURL)
	}
	if !strings.HasSuffix(base.Path, "/") {
		base.Path += "/"
	}
	c := &Client{o: o}
	hc := &http.Client{Transport: newTransport(o.Transport, o, &c.n)}
	c.plain = hc
	client := gh.NewClient(hc)
	if o.Token != "" {
		client = client.WithAuthToken(o.Token)
	}
	client.BaseURL = base
	client.UserAgent = "tfgate"
	c.gh = client
	return c, nil
}

// Stats is what the client has sent so far.
func (c *Client) Stats() Stats {
	return Stats{Calls: c.n.calls.Load(), Retries: c.n.retries.Load(), Recovered: c.n.recovered.Load(),
		RateLimitWaits: c.n.limitWaits.Load(), RateLimitWait: time.Duration(c.n.limitWait.Load())}
}

// RateLimitError is a primary rate limit whose reset was too far away to wait for.
type RateLimitError struct {
	Reset time.Time
	Err   error
}

func (e *RateLimitError) Error() string {
	return fmt.Sprintf("GitHub API rate limit exhausted until %s (in %s); retry after that",
		e.Reset.UTC().Format(time.RFC3339), time.Until(e.Reset).Round(time.Second))
}

func (e *RateLimitError) Unwrap() error { return e.Err }

// HTTPStatus is the HTTP status GitHub answered err with, or 0.
func HTTPStatus(err error) int {
	var er *gh.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		return er.Response.StatusCode
	}
	var rl *gh.RateLimitError
	if errors.As(err, &rl) && rl.Response != nil {
		return rl.Response.StatusCode
	}
	var ab *gh.AbuseRateLimitError
	if errors.As(err, &ab) && ab.Response != nil {
		return ab.Response.StatusCode
	}
	return 0
}

// wrap turns go-github's errors into tfgate's: what was called, and for a primary rate
// limit the reset time.
func wrap(what string, err error) error {
	if err == nil {
		return nil
	}
	var rl *gh.RateLimitError
	if errors.As(err, &rl) {
		return fmt.Errorf("%s: %w", what, &RateLimitError{Reset: rl.Rate.Reset.Time, Err: err})
	}
	// go-github v60 recognises a primary limit only on 403; GitHub also answers 429.
	var er *gh.ErrorResponse
	if errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusTooManyRequests {
		if reset, ok := primaryReset(er.Response); ok {
			return fmt.Errorf("%s: %w", what, &RateLimitError{Reset: reset, Err: err})
		}
	}
	return fmt.Errorf("%s: %w", what, err)
}

const perPage = 100

// paginate calls list for page 1, 2, … until GitHub's Link header has no next page.
func paginate(list func(opts gh.ListOptions) (*gh.Response, error)) error {
	opts := gh.ListOptions{PerPage: perPage, Page: 1}
	for {
		resp, err := list(opts)
		if err != nil {
			return err
		}
		if resp.NextPage == 0 {
			return nil
		}
		opts.Page = resp.NextPage
	}
}

func user(u *gh.User) User {
	if u == nil {
		return User{}
	}
	return User{Login: u.GetLogin(), Type: u.GetType()}
}
