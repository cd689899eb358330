package notify

import (
	"strings"
	"testing"
	"time"

	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/render"
	"github.com/tfgate/tfgate/internal/report"
)

func TestTrackingState(t *testing.T) {
	body := trackingBody(render.Tracking{Project: "app", Dir: "app", Recover: "app/tfgate_recover.tf",
		Entries: []render.TrackingEntry{{Merge: "0123456789abcdef0123456789abcdef01234567", PR: 7, Status: "refused", Reason: "--> <!-- x"}}})
	got := parseTrackingState(body)
	if len(got) != 1 || got[0].PR != 7 || got[0].Reason != "--> <!-- x" {
		t.Fatalf("the entries do not survive the body: %+v\n%s", got, body)
	}
	if n := strings.Count(body, "-->"); n != 2 { // the marker's and the state line's: none from the reason
		t.Errorf("%d comment ends in the body, want 2:\n%s", n, body)
	}
	if parseTrackingState("no state here") != nil {
		t.Error("a body without the state line has no entries")
	}
}

// PlanTracking, case by case: which projects get an issue, which close one, and that only
// tfgate's issues (marker and author) count.
func TestPlanTracking(t *testing.T) {
	id := github.Identity{Login: "github-actions[bot]"}
	bot, bob := github.User{Login: "github-actions[bot]"}, github.User{Login: "bob"}
	rec := func(n int, state string, author github.User, project string, entries ...render.TrackingEntry) github.Issue {
		body := trackingBody(render.Tracking{Project: project, Entries: entries})
		return github.Issue{Number: n, State: state, Author: author, Body: body}
	}
	m1 := render.TrackingEntry{Merge: "1111111111111111111111111111111111111111", PR: 1, Status: "refused"}
	issues := []github.Issue{
		rec(10, "open", bob, "a"),            // an impostor: ignored
		rec(11, "open", bot, "b", m1),        // b's open issue
		rec(12, "closed", bot, "c", m1),      // c's closed one
		rec(13, "open", bot, "d", m1),        // d's open one, this merge applies d
		rec(14, "open", bot, "observed", m1), // skipped projects are left alone
	}
	run := report.Run{Commit: "2222222222222222222222222222222222222222", PR: 2, Projects: []report.Project{
		{Name: "a", Status: report.StatusRefused, Gate: &report.Gate{Reasons: []report.Reason{{Text: "the plan is stale"}}}},
		{Name: "b", Status: report.StatusFailed, Error: "terraform apply failed"},
		{Name: "c", Status: report.StatusNotStarted},
		{Name: "d", Status: report.StatusApplied, Gate: &report.Gate{Approvals: []report.Approval{{Login: "bob"}}}},
		{Name: "e", Status: report.StatusApplied}, // no issue: nothing to close
		{Name: "observed", Status: report.StatusApplied},
	}}
	tr := Tracking{Identity: id, Run: run, Skip: map[string]bool{"observed": true}, Now: time.Date(2026, 12, 2, 3, 0, 0, 0, time.UTC)}
	changes := PlanTracking(tr, issues)
	got := map[string]TrackingChange{}
	for _, c := range changes {
		got[run.Projects[c.Project].Name] = c
	}
	if len(changes) != 4 {
		t.Fatalf("%d changes, want 4 (a, b, c, d): %+v", len(changes), changes)
	}
	if c := got["a"]; c.Op != OpCreate || !strings.Contains(c.Body, "the plan is stale") || !strings.Contains(c.Body, "| #2 |") {
		t.Errorf("a: %s, want a new issue naming #2 and why:\n%s", c.Op, c.Body)
	}
	if c := got["b"]; c.Op != OpEdit || c.Number != 11 || c.Note == "" || len(parseTrackingState(c.Body)) != 2 {
		t.Errorf("b: %s #%d, want #11 edited with both merges and a note", c.Op, c.Number)
	}
	if c := got["c"]; c.Op != OpReopen || c.Number != 12 || len(parseTrackingState(c.Body)) != 1 {
		t.Errorf("c: %s #%d, want #12 reopened with this merge alone", c.Op, c.Number)
	}
	if c := got["d"]; c.Op != OpClose || c.Number != 13 || !strings.Contains(c.Note, "of #2") || !strings.Contains(c.RunNote(13), "1111111 (#1)") {
		t.Errorf("d: %s #%d (%q), want #13 closed naming #2 and the merge it recovers", c.Op, c.Number, c.Note)
	}
	// A re-run of the same merge: the open issue is updated, with no second note.
	issues[1] = rec(11, "open", bot, "b", m1, render.TrackingEntry{Merge: run.Commit, PR: 2, Status: "failed"})
	for _, c := range PlanTracking(tr, issues) {
		if run.Projects[c.Project].Name == "b" && (c.Note != "" || len(parseTrackingState(c.Body)) != 2) {
			t.Errorf("b on a re-run: note %q, %d entries; want no note, 2 entries", c.Note, len(parseTrackingState(c.Body)))
		}
	}
}
