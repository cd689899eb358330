package notify

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/github/githubtest"
	"github.com/tfgate/tfgate/internal/report"
)

// Duplicates close every open record after the one kept, and nothing else.
func TestDuplicates(t *testing.T) {
	web := driftedProject("web")
	bob := github.User{Login: "bob", Type: "User"}
	for _, tt := range []struct {
		name   string
		issues []github.Issue
		closed []int
	}{
		{"one record", []github.Issue{issueFor(3, web, "open", t0, botUser)}, nil},
		{"two open: the older closed", []github.Issue{issueFor(3, web, "open", t0, botUser), issueFor(5, web, "open", t0, botUser)}, []int{3}},
		{"three open", []github.Issue{issueFor(3, web, "open", t0, botUser), issueFor(5, web, "open", t0, botUser), issueFor(4, web, "open", t0, botUser)}, []int{4, 3}},
		{"closed extras are history", []github.Issue{issueFor(3, web, "closed", t0, botUser), issueFor(5, web, "open", t0, botUser)}, nil},
		{"all closed", []github.Issue{issueFor(3, web, "closed", t0, botUser), issueFor(5, web, "closed", t0, botUser)}, nil},
		{"someone else's copy is not a record", []github.Issue{issueFor(3, web, "open", t0, botUser), issueFor(5, web, "open", t0, bob)}, nil},
		{"another project's", []github.Issue{issueFor(3, web, "open", t0, botUser), issueFor(5, driftedProject("db"), "open", t0, botUser)}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cs := Duplicates(tt.issues, DriftKind, "web", bot)
			if len(cs) != len(tt.closed) {
				t.Fatalf("changes %+v, want closes of %v", cs, tt.closed)
			}
			for i, c := range cs {
				if c.Op != OpDuplicate || c.Number != tt.closed[i] || !strings.HasPrefix(c.Note, "Duplicate of #") {
					t.Errorf("change %+v, want #%d closed with a note", c, tt.closed[i])
				}
			}
		})
	}
	// The plan of a run: the kept one edited (its drift changed), the duplicate closed.
	run := report.Run{Kind: report.KindDrift, Projects: []report.Project{web}}
	cs := PlanDriftIssues(run, []github.Issue{issueFor(3, web, "open", t0, botUser), issueFor(5, otherDrift(web), "open", t0, botUser)}, bot, DriftBodyOptions{Now: t1})
	if len(cs) != 2 || cs[0].Op != OpEdit || cs[0].Number != 5 || cs[1].Op != OpDuplicate || cs[1].Number != 3 || !strings.Contains(cs[1].Note, "#5") {
		t.Errorf("changes %+v", cs)
	}
	// Unchanged, the kept one is left alone; the duplicate is still closed.
	cs = PlanDriftIssues(run, []github.Issue{issueFor(3, web, "open", t0, botUser), issueFor(5, web, "open", t0, botUser)}, bot, DriftBodyOptions{Now: t1})
	if len(cs) != 1 || cs[0].Op != OpDuplicate || cs[0].Number != 3 {
		t.Errorf("changes %+v", cs)
	}
}

// A close whose edit fails says nothing; one whose note fails has closed the issue, so the
// next run has nothing to say again.
func TestCloseEditsBeforeTheNote(t *testing.T) {
	s := githubtest.New(t)
	const repoName = "acme/infra"
	n := s.AddIssue(repoName, githubtest.Issue{Title: "t", Body: "b", Author: githubtest.Bot, Labels: []string{"drift"}})
	c, err := github.New(github.Options{BaseURL: s.URL(), Token: githubtest.InstallationToken, Backoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	tr := Tracker{API: c, Repo: github.Repo{Owner: "acme", Name: "infra"}, Identity: bot, Kind: DriftKind, Labels: []string{"drift"}}
	change := Change{Op: OpClose, Number: n, Body: "b2", Note: "back in sync"}
	s.FailNext(4, 502, "PATCH /repos/{owner}/{repo}/issues/{issue_number}")
	if _, err := tr.Apply(context.Background(), change); err == nil {
		t.Fatal("a failed edit passed")
	}
	if cs := s.Comments(repoName, n); len(cs) != 0 {
		t.Fatalf("a failed close left the note %+v", cs)
	}
	s.FailNext(4, 502, "POST /repos/{owner}/{repo}/issues/{issue_number}/comments")
	_, err = tr.Apply(context.Background(), change)
	if err == nil || !strings.Contains(err.Error(), "is closed, but its note could not be posted") {
		t.Fatalf("err %v", err)
	}
	if is := s.Issues(repoName); is[0].State != "closed" {
		t.Errorf("issue %+v", is[0])
	}
}
