package notify

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tfgate/tfgate/internal/ci"
	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/github/githubtest"
	"github.com/tfgate/tfgate/internal/plan"
	"github.com/tfgate/tfgate/internal/report"
)

// The drift API calls are measured on the publishing half of `tfgate drift`: PublishDrift
// given the run checkDrift returns (each project drifted, its redacted attributes), against
// githubtest. Planning is left out on purpose: it makes no GitHub call, and what publishing
// does depends only on the run it is given, so the count is the command's.

// nightRun is a drift run of n projects, each drifted by one attribute whose new value is
// value: the same value on two nights is a steady night.
func nightRun(n int, value string) report.Run {
	run := report.Run{Kind: report.KindDrift, Commit: "0123456789abcdef0123456789abcdef01234567"}
	for i := range n {
		p := driftedProject(fmt.Sprintf("envs/p%03d", i))
		p.Changes.Drift[0].Attributes[0].After = plan.Value{Text: fmt.Sprintf("%q", value), Kind: plan.KindKnown}
		run.Projects = append(run.Projects, p)
	}
	return run
}

// driftNight publishes run as `tfgate drift` does in Actions with the workflow's token and
// returns the number of API requests it made.
func driftNight(tb testing.TB, s *githubtest.Server, run report.Run, at time.Time) (report.Run, int) {
	tb.Helper()
	c, err := github.New(github.Options{BaseURL: s.URL(), Token: githubtest.InstallationToken, Backoff: time.Millisecond})
	if err != nil {
		tb.Fatal(err)
	}
	s.ResetCounts()
	out, err := PublishDrift(context.Background(), Drift{API: c, Now: func() time.Time { return at },
		Env: ci.GitHub{Actions: true, Repository: "acme/infra", ServerURL: "https://github.com", RunID: "1"}}, run)
	if err != nil {
		tb.Fatal(err)
	}
	return out, s.Requests()
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// A steady night (every project drifted as the night before) lists the open drift issues,
// 100 a page, and reads or writes nothing else: identity, then ⌈N/100⌉ pages.
func TestSteadyNightCalls(t *testing.T) {
	for _, n := range []int{1, 100, 250} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			s := githubtest.New(t)
			driftNight(t, s, nightRun(n, "v2"), t0)
			before := s.Issues("acme/infra")
			out, calls := driftNight(t, s, nightRun(n, "v2"), t1)
			if want := ceilDiv(n, 100) + 1; calls != want {
				t.Errorf("steady night of %d projects: %d calls (%v), want %d", n, calls, s.Counts(), want)
			}
			after := s.Issues("acme/infra")
			for i := range after {
				if after[i].Body != before[i].Body || !after[i].UpdatedAt.Equal(before[i].UpdatedAt) {
					t.Fatalf("issue #%d was written on a steady night", after[i].Number)
				}
			}
			for i, p := range out.Projects {
				if p.Issue == "" {
					t.Fatalf("project %d lost its issue link", i)
				}
			}
		})
	}
}

// A night where every project's drift changed edits every issue; one where all are back
// in sync closes every issue.
func TestChangedNightEdits(t *testing.T) {
	const n = 120
	s := githubtest.New(t)
	driftNight(t, s, nightRun(n, "v2"), t0)
	_, calls := driftNight(t, s, nightRun(n, "v3"), t1)
	if want := 1 + ceilDiv(n, 100) + n; calls != want {
		t.Errorf("changed night: %d calls (%v), want %d", calls, s.Counts(), want)
	}
	for _, is := range s.Issues("acme/infra") {
		if st, ok := ParseDriftState(is.Body); !ok || !st.FirstSeen.Equal(t0) || is.State != "open" {
			t.Fatalf("issue #%d: %+v %v %s", is.Number, st, ok, is.State)
		}
	}
	synced := nightRun(n, "v2")
	for i := range synced.Projects {
		synced.Projects[i] = withStatus(synced.Projects[i], report.StatusInSync)
	}
	driftNight(t, s, synced, t1.Add(24*time.Hour))
	for _, is := range s.Issues("acme/infra") {
		if is.State != "closed" {
			t.Fatalf("issue #%d is %s after the drift resolved", is.Number, is.State)
		}
	}
}

// BenchmarkDriftSteadyNight reports the API calls of a steady drift night (make bench):
// calls/night for N = 1, 100 and 250 projects, every one drifted as the night before.
func BenchmarkDriftSteadyNight(b *testing.B) {
	for _, n := range []int{1, 100, 250} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			s := githubtest.New(b)
			driftNight(b, s, nightRun(n, "v2"), t0)
			calls := 0
			b.ResetTimer()
			for range b.N {
				_, calls = driftNight(b, s, nightRun(n, "v2"), t1)
			}
			b.ReportMetric(float64(calls), "calls/night")
		})
	}
}

// An issue closed by hand while its drift is still there is reopened, as before the
// fingerprints: the night lists the closed issues too, but only because a project has no
// open one; the steady project beside it costs nothing.
func TestClosedByHandReopens(t *testing.T) {
	s := githubtest.New(t)
	driftNight(t, s, nightRun(2, "v2"), t0)
	c, err := github.New(github.Options{BaseURL: s.URL(), Token: githubtest.InstallationToken, Backoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	closed := "closed"
	if _, err := c.EditIssue(context.Background(), github.Repo{Owner: "acme", Name: "infra"}, 1, github.IssueRequest{State: &closed}); err != nil {
		t.Fatal(err)
	}
	_, calls := driftNight(t, s, nightRun(2, "v2"), t1)
	// identity, open issues, closed issues, the edit that reopens, its note
	if calls != 5 || s.Count("GET /repos/{owner}/{repo}/issues") != 2 {
		t.Errorf("%d calls (%v), want 5", calls, s.Counts())
	}
	for _, is := range s.Issues("acme/infra") {
		if is.State != "open" {
			t.Errorf("issue #%d is %s", is.Number, is.State)
		}
	}
	if n := len(s.Issues("acme/infra")); n != 2 {
		t.Errorf("%d issues, want 2: a closed record is reopened, never duplicated", n)
	}
}

// GitHub's list of issues holds pull requests too: one labelled drift, written by tfgate's
// identity with a drift issue's marker, is neither the project's record nor a duplicate.
func TestLabelledPullRequestIsNoRecord(t *testing.T) {
	s := githubtest.New(t)
	driftNight(t, s, nightRun(1, "v2"), t0)
	issue := s.Issues("acme/infra")[0]
	pr := s.AddPull("acme/infra", githubtest.Pull{Author: githubtest.Bot, HeadSHA: "abc"})
	c, err := github.New(github.Options{BaseURL: s.URL(), Token: githubtest.InstallationToken, Backoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	labels := []string{"drift"}
	if _, err := c.EditIssue(context.Background(), github.Repo{Owner: "acme", Name: "infra"}, pr, github.IssueRequest{Body: &issue.Body, Labels: &labels}); err != nil {
		t.Fatal(err)
	}
	out, calls := driftNight(t, s, nightRun(1, "v2"), t1)
	if calls != 2 {
		t.Errorf("%d calls (%v), want 2: the pull request was taken for an issue", calls, s.Counts())
	}
	if got := s.Issues("acme/infra")[0]; got.State != "open" || got.Body != issue.Body {
		t.Errorf("the issue was changed: %s", got.State)
	}
	if want := fmt.Sprintf("/issues/%d", issue.Number); !strings.HasSuffix(out.Projects[0].Issue, want) {
		t.Errorf("issue link %q, want …%s", out.Projects[0].Issue, want)
	}
}

// failingClosedList is the client, but listing the closed issues fails.
type failingClosedList struct{ github.API }

func (f failingClosedList) ListIssues(ctx context.Context, repo github.Repo, flt github.IssueFilter) ([]github.Issue, error) {
	if flt.State == "closed" {
		return nil, fmt.Errorf("502 Bad Gateway")
	}
	return f.API.ListIssues(ctx, repo, flt)
}

// Fail closed: when the closed issues cannot be listed, nothing is written — not even the
// change of a project whose open issue was found — and the error says so.
func TestClosedListFailsClosed(t *testing.T) {
	s := githubtest.New(t)
	driftNight(t, s, nightRun(1, "v2"), t0)
	c, err := github.New(github.Options{BaseURL: s.URL(), Token: githubtest.InstallationToken, Backoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	run := nightRun(2, "v3") // the first project's drift changed, the second is new
	s.ResetCounts()
	_, err = PublishDriftIssues(context.Background(), DriftIssues{API: failingClosedList{c}, Repo: github.Repo{Owner: "acme", Name: "infra"},
		Body: DriftBodyOptions{Now: t1}}, run)
	if err == nil || !strings.Contains(err.Error(), "list drift issues: 502") {
		t.Fatalf("err = %v, want the failed listing", err)
	}
	if n := s.Count("PATCH /repos/{owner}/{repo}/issues/{issue_number}") + s.Count("POST /repos/{owner}/{repo}/issues"); n != 0 {
		t.Errorf("%d issues written after a failed listing (%v)", n, s.Counts())
	}
}
