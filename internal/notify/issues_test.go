package notify

import (
	"testing"

	"github.com/tfgate/tfgate/internal/github"
)

// Records are a project's issues of one kind written by tfgate, best first: the one a
// Tracker acts on, then duplicates (open before closed, newer before older).
func TestRecordsBestFirst(t *testing.T) {
	rec := func(n int, state, kind, project string, author github.User) github.Issue {
		return github.Issue{Number: n, State: state, Author: author, Body: RecordMarker{Kind: kind, Project: project}.String() + "\nbody"}
	}
	bob := github.User{Login: "bob"}
	issues := []github.Issue{
		rec(1, "open", "drift", "web", botUser),
		rec(2, "closed", "drift", "web", botUser),
		rec(3, "open", "drift", "web", botUser),
		rec(4, "open", "drift", "web", bob),        // anyone can type a marker
		rec(5, "open", "tracking", "web", botUser), // another kind
		rec(6, "open", "drift", "db", botUser),     // another project
		{Number: 7, State: "open", Author: botUser, Body: "> " + RecordMarker{Kind: "drift", Project: "web"}.String()},
	}
	var got []int
	for _, is := range Records(issues, "drift", "web", bot) {
		got = append(got, is.Number)
	}
	if want := []int{3, 1, 2}; len(got) != len(want) || got[0] != 3 || got[1] != 1 || got[2] != 2 {
		t.Fatalf("records %v, want %v", got, want)
	}
	tr := Tracker{Kind: "drift", Identity: bot}
	if is, ok := tr.Find(issues, "web"); !ok || is.Number != 3 {
		t.Errorf("Find = #%d, %v; want #3", is.Number, ok)
	}
	if _, ok := tr.Find(issues, "net"); ok {
		t.Error("a project without a record found one")
	}
}
