package render

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestTrackingIssue(t *testing.T) {
	at := time.Date(2026, 12, 2, 3, 0, 0, 0, time.UTC)
	tr := Tracking{Project: "envs/prod/app", Dir: "envs/prod/app", Workspace: "default", Recover: "envs/prod/app/tfgate_recover.tf",
		Entries: []TrackingEntry{
			{Merge: "0123456789abcdef0123456789abcdef01234567", PR: 7, Status: "refused", At: at, RunURL: "https://github.example/acme/infra/actions/runs/1",
				Reason: "the reviewed plan is stale: the state changed since it was planned | @bob <!-- x --> #12\nsecond line"},
			{Merge: "89abcdef0123456789abcdef0123456789abcdef", Status: "failed", At: at, Reason: "commit 89abcde is not the merge of a pull request"},
		}}
	body := TrackingTitle(tr) + "\n\n" + TrackingBody(tr) + "\n---\n" + TrackingNotApplied(tr.Entries[0], true) + "\n---\n" +
		TrackingResolved("fedcba9876543210fedcba9876543210fedcba98", 9, []string{"bob"}, "https://github.example/acme/infra/actions/runs/2", at)
	for _, bad := range []string{"<!--", "@bob", "second line"} {
		if strings.Contains(body, bad) {
			t.Errorf("the body must not carry %q from a reason:\n%s", bad, body)
		}
	}
	if !strings.Contains(body, "| #7 |") {
		t.Errorf("the original pull request must be linked:\n%s", body)
	}
	golden(t, []byte(body))
}

func TestTrackingIssueBounded(t *testing.T) {
	tr := Tracking{Project: "app", Recover: "app/tfgate_recover.tf"}
	for i := range 50 {
		tr.Entries = append(tr.Entries, TrackingEntry{Merge: fmt.Sprintf("%040d", i), PR: i + 1, Status: "refused", Reason: strings.Repeat("x", 5000)})
	}
	body := TrackingBody(tr)
	if n := strings.Count(body, "\n| `"); n != maxTrackingRows {
		t.Errorf("%d rows, want %d", n, maxTrackingRows)
	}
	if !strings.Contains(body, "30 earlier merges not shown") || len([]rune(body)) > 20000 {
		t.Errorf("the table must stay bounded (%d characters)", len([]rune(body)))
	}
	if got := shellWord("it's a project"); got != `'it'\''s a project'` {
		t.Errorf("shellWord = %s", got)
	}
}
