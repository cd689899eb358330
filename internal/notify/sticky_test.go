package notify_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/github/githubtest"
	"github.com/tfgate/tfgate/internal/notify"
)

const (
	listComments  = "GET /repos/{owner}/{repo}/issues/{issue_number}/comments"
	createComment = "POST /repos/{owner}/{repo}/issues/{issue_number}/comments"
	editComment   = "PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}"
	deleteComment = "DELETE /repos/{owner}/{repo}/issues/comments/{comment_id}"
)

var repo = github.Repo{Owner: "acme", Name: "infra"}

func newClient(t *testing.T, s *githubtest.Server, token string) *github.Client {
	t.Helper()
	c, err := github.New(github.Options{BaseURL: s.URL(), Token: token, Backoff: 10 * time.Millisecond, MaxWait: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// setup is a pull request and a client with GITHUB_TOKEN whose identity is resolved.
func setup(t *testing.T) (*githubtest.Server, *github.Client, int, github.Identity) {
	s := githubtest.New(t)
	pr := s.AddPull(repo.String(), githubtest.Pull{HeadSHA: "abc"})
	c := newClient(t, s, githubtest.InstallationToken)
	id, err := c.Identity(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	s.ResetCounts()
	return s, c, pr, id
}

func publish(t *testing.T, c *github.Client, pr int, id github.Identity, parts ...string) notify.Published {
	t.Helper()
	p, err := notify.PublishComment(context.Background(), c, repo, pr, "plan", parts, id)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func wantCalls(t *testing.T, s *githubtest.Server, want map[string]int) {
	t.Helper()
	total := 0
	for k, n := range want {
		total += n
		if got := s.Count(k); got != n {
			t.Errorf("%s: %d calls, want %d", k, got, n)
		}
	}
	if s.Requests() != total {
		t.Errorf("%d requests in all, want %d: %v", s.Requests(), total, s.Counts())
	}
	s.ResetCounts()
}

func TestStickyCommentIsEditedInPlace(t *testing.T) {
	s, c, pr, id := setup(t)
	first := publish(t, c, pr, id, "plan: +1")
	wantCalls(t, s, map[string]int{listComments: 1, createComment: 1})
	second := publish(t, c, pr, id, "plan: +2")
	wantCalls(t, s, map[string]int{listComments: 1, editComment: 1})
	publish(t, c, pr, id, "plan: +2")
	wantCalls(t, s, map[string]int{listComments: 1}) // unchanged: not sent again

	cs := s.Comments(repo.String(), pr)
	if len(cs) != 1 || first.Comments[0].ID != second.Comments[0].ID || cs[0].Edits != 1 {
		t.Fatalf("comments %+v", cs)
	}
	if want := "<!-- tfgate:plan pr=1 part=1/1 -->\nplan: +2"; cs[0].Body != want {
		t.Errorf("body %q, want %q", cs[0].Body, want)
	}
}

func TestStickyCommentLeavesOthersAlone(t *testing.T) {
	s, c, pr, id := setup(t)
	quote := "<!-- tfgate:plan pr=1 part=1/1 -->\nI copied tfgate's comment"
	bobs := s.AddComment(repo.String(), pr, githubtest.Bob, quote)
	other := s.AddComment(repo.String(), pr, githubtest.Bot, "<!-- tfgate:plan pr=2 part=1/1 -->\nanother PR's")
	publish(t, c, pr, id, "mine")
	publish(t, c, pr, id, "mine, again")
	publish(t, c, pr, id, "one", "two")
	publish(t, c, pr, id, "one")
	var mine int
	for _, cm := range s.Comments(repo.String(), pr) {
		switch cm.ID {
		case bobs:
			if cm.Body != quote || cm.Edits != 0 {
				t.Errorf("bob's comment changed: %+v", cm)
			}
		case other:
			if cm.Edits != 0 {
				t.Errorf("another PR's marker was edited: %+v", cm)
			}
		default:
			mine++
		}
	}
	if mine != 1 || len(s.Comments(repo.String(), pr)) != 3 {
		t.Errorf("%d own comments, %d in all", mine, len(s.Comments(repo.String(), pr)))
	}
}

func TestStickyCommentSplitsAndShrinks(t *testing.T) {
	s, c, pr, id := setup(t)
	big := strings.Repeat("x", github.MaxCommentChars-notify.MarkerReserve)
	p := publish(t, c, pr, id, big, big, "tail")
	wantCalls(t, s, map[string]int{listComments: 1, createComment: 3})
	if p.Created != 3 {
		t.Errorf("%+v", p)
	}
	cs := s.Comments(repo.String(), pr)
	for i, cm := range cs {
		if m, ok := notify.ParseCommentMarker(cm.Body); !ok || m.Part != i+1 || m.Parts != 3 {
			t.Errorf("comment %d marker %+v", i, m)
		}
	}
	p = publish(t, c, pr, id, "small now")
	wantCalls(t, s, map[string]int{listComments: 1, editComment: 1, deleteComment: 2})
	cs2 := s.Comments(repo.String(), pr)
	if len(cs2) != 1 || cs2[0].ID != cs[0].ID || p.Deleted != 2 {
		t.Errorf("after shrinking: %+v", cs2)
	}
	if _, err := notify.PublishComment(context.Background(), c, repo, pr, "plan", []string{big + strings.Repeat("y", 200)}, id); err == nil {
		t.Error("a part over GitHub's limit was accepted")
	}
}

func TestStickyCommentPaginates(t *testing.T) {
	s, c, pr, id := setup(t)
	for i := range 230 {
		s.AddComment(repo.String(), pr, githubtest.Bob, fmt.Sprint("chatter ", i))
	}
	publish(t, c, pr, id, "v1")
	wantCalls(t, s, map[string]int{listComments: 3, createComment: 1})
	publish(t, c, pr, id, "v2") // found on page 3
	wantCalls(t, s, map[string]int{listComments: 3, editComment: 1})
	if n := len(s.Comments(repo.String(), pr)); n != 231 {
		t.Errorf("%d comments, want 231", n)
	}
}

func TestStickyCommentSurvivesFaults(t *testing.T) {
	s, c, pr, id := setup(t)
	s.FailNext(2, 502, listComments)
	s.SecondaryRateLimitNext(1, time.Second, createComment)
	s.FailNext(1, 503, createComment)
	publish(t, c, pr, id, "through the storm")
	// The 503 on the post may have hidden a write: one more list looks for it before
	// posting again.
	wantCalls(t, s, map[string]int{listComments: 4, createComment: 3})
	if st := c.Stats(); st.Retries != 4 || st.RateLimitWaits != 1 || st.RateLimitWait <= 0 || st.RateLimitWait > 3*time.Second {
		t.Errorf("stats %+v, want 4 retries and one rate-limit wait of about a second", st)
	}
	if n := len(s.Comments(repo.String(), pr)); n != 1 {
		t.Errorf("%d comments, want 1", n)
	}
}

func TestPrimaryRateLimit(t *testing.T) {
	s, c, pr, id := setup(t)
	s.PrimaryRateLimitNext(1, 403, time.Now().Add(time.Second), listComments)
	publish(t, c, pr, id, "after a short wait")
	if st := c.Stats(); st.RateLimitWaits != 1 || st.RateLimitWait <= 0 || st.RateLimitWait > 3*time.Second {
		t.Errorf("stats %+v, want one rate-limit wait of at most 2s", st)
	}

	reset := time.Now().Add(time.Hour)
	s.PrimaryRateLimitNext(1, 429, reset, listComments)
	_, err := notify.PublishComment(context.Background(), c, repo, pr, "plan", []string{"x"}, id)
	if err == nil || !strings.Contains(err.Error(), reset.UTC().Format(time.RFC3339)) {
		t.Fatalf("error %v does not name the reset %s", err, reset.UTC().Format(time.RFC3339))
	}
	if st := c.Stats(); st.RateLimitWaits != 1 {
		t.Errorf("stats %+v: a reset too far away to wait for is no wait", st)
	}
}

func TestReadOnlyTokenCannotPublish(t *testing.T) {
	s := githubtest.New(t)
	pr := s.AddPull(repo.String(), githubtest.Pull{Fork: true})
	c := newClient(t, s, githubtest.ForkToken)
	id, err := c.Identity(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	_, err = notify.PublishComment(context.Background(), c, repo, pr, "plan", []string{"x"}, id)
	if github.HTTPStatus(err) != 403 {
		t.Errorf("fork token: %v", err)
	}
}

func TestParseCommentMarker(t *testing.T) {
	tests := []struct {
		body string
		ok   bool
		want notify.CommentMarker
	}{
		{"<!-- tfgate:plan pr=42 part=1/3 -->\nbody", true, notify.CommentMarker{Kind: "plan", PR: 42, Part: 1, Parts: 3}},
		{"<!-- tfgate:plan pr=42 part=2/2 -->", true, notify.CommentMarker{Kind: "plan", PR: 42, Part: 2, Parts: 2}},
		{"> <!-- tfgate:plan pr=42 part=1/1 -->", false, notify.CommentMarker{}},
		{"<!-- tfgate:plan pr=42 part=3/2 -->", false, notify.CommentMarker{}},
		{"<!-- tfgate:plan pr=42 part=1/1 -->trailing", false, notify.CommentMarker{}},
		{"<!-- tfgate:Plan pr=42 part=1/1 -->", false, notify.CommentMarker{}},
	}
	for _, tt := range tests {
		got, ok := notify.ParseCommentMarker(tt.body)
		if ok != tt.ok || got != tt.want {
			t.Errorf("ParseCommentMarker(%q) = %+v, %v", tt.body, got, ok)
		}
		if ok && !strings.HasPrefix(tt.body, got.String()) {
			t.Errorf("String() = %q does not round-trip", got.String())
		}
	}
}

func TestRecordMarker(t *testing.T) {
	for _, name := range []string{"envs/prod/network", "a b", "x-->y", "ünï", "100%", "a\nb"} {
		m := notify.RecordMarker{Kind: "drift", Project: name}
		got, ok := notify.ParseRecordMarker(m.String() + "\nbody")
		if !ok || got != m {
			t.Errorf("%q: marker %s parses as %+v, %v", name, m, got, ok)
		}
		if strings.Count(m.String(), "-->") != 1 {
			t.Errorf("%q: marker %s ends early", name, m)
		}
	}
	for _, body := range []string{"", "<!-- tfgate:drift project= -->", " <!-- tfgate:drift project=a -->", "text\n<!-- tfgate:drift project=a -->",
		"<!-- tfgate:plan pr=1 part=1/1 -->", "<!-- tfgate:drift project=a b -->", "<!-- tfgate:drift project=%zz -->"} {
		if m, ok := notify.ParseRecordMarker(body); ok {
			t.Errorf("%q parses as %+v", body, m)
		}
	}
}

// A copy of the comment tfgate itself left (same marker, tfgate's identity) is deleted and
// counted as a duplicate; a plan that shrank is not one.
func TestStickyCommentDuplicatesAreDeleted(t *testing.T) {
	s, c, pr, id := setup(t)
	first := s.AddComment(repo.String(), pr, githubtest.Bot, "<!-- tfgate:plan pr=1 part=1/1 -->\nold")
	s.AddComment(repo.String(), pr, githubtest.Bot, "<!-- tfgate:plan pr=1 part=1/1 -->\nold, again")
	p := publish(t, c, pr, id, "new")
	if p.Deleted != 1 || p.Duplicates != 1 || p.Edited != 1 {
		t.Errorf("published %+v", p)
	}
	if cs := s.Comments(repo.String(), pr); len(cs) != 1 || cs[0].ID != first {
		t.Errorf("comments %+v", cs)
	}
	publish(t, c, pr, id, "one", "two")
	if p := publish(t, c, pr, id, "one"); p.Deleted != 1 || p.Duplicates != 0 {
		t.Errorf("a shrunk plan: %+v", p)
	}
}
