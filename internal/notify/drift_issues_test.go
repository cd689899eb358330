package notify

import (
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/plan"
	"github.com/tfgate/tfgate/internal/report"
)

var (
	bot     = github.Identity{Login: "github-actions[bot]"}
	botUser = github.User{Login: "github-actions[bot]", Type: "Bot"}
	t0      = time.Date(2026, 11, 27, 3, 0, 0, 0, time.UTC)
	t1      = time.Date(2026, 11, 29, 3, 0, 0, 0, time.UTC)
)

func driftedProject(name string) report.Project {
	return report.Project{Name: name, Workspace: "default", Status: report.StatusDrifted, Changes: &plan.Changes{
		Summary: plan.Summary{Drift: 1},
		Drift: []plan.Resource{{Address: "fakecloud_object.web", Action: plan.ActionUpdate, Attributes: []plan.Attribute{
			{Path: "content", Before: plan.Value{Text: `"v1"`, Kind: plan.KindKnown}, After: plan.Value{Text: `"v2"`, Kind: plan.KindKnown}},
			{Path: "secret", Before: plan.Value{Text: plan.TextSensitive, Kind: plan.KindSensitive}, After: plan.Value{Text: plan.TextSensitive, Kind: plan.KindSensitive}},
		}}},
	}}
}

func withStatus(p report.Project, s report.Status) report.Project {
	p.Status = s
	if s == report.StatusFailed {
		p.Changes, p.Error = nil, "Error: boom"
	}
	if s == report.StatusInSync {
		p.Changes = &plan.Changes{}
	}
	return p
}

// issueFor is the issue tfgate would have written for p when it was first seen at first.
func issueFor(n int, p report.Project, state string, first time.Time, author github.User) github.Issue {
	return github.Issue{Number: n, State: state, Author: author, HTMLURL: "https://github.com/acme/infra/issues/" + string(rune('0'+n)),
		Title: DriftTitle(p), Body: DriftBody(p, DriftState{Status: p.Status, FirstSeen: first}, DriftBodyOptions{Now: first})}
}

// otherDrift is p with its drifted attribute at another value.
func otherDrift(p report.Project) report.Project {
	c := *p.Changes
	c.Drift = []plan.Resource{c.Drift[0]}
	c.Drift[0].Attributes = []plan.Attribute{c.Drift[0].Attributes[0]}
	c.Drift[0].Attributes[0].After = plan.Value{Text: `"v3"`, Kind: plan.KindKnown}
	p.Changes = &c
	return p
}

// edited is the issue after someone changed it by hand.
func edited(is github.Issue, edit func(*github.Issue)) github.Issue {
	edit(&is)
	return is
}

// olderBody is the body as a tfgate before the fingerprints wrote it: no digest, no sum.
func olderBody(is *github.Issue) {
	is.Body = regexp.MustCompile(` digest=[0-9a-f]+ sum=[0-9a-f]+`).ReplaceAllString(is.Body, "")
}

func TestPlanIssues(t *testing.T) {
	web := driftedProject("web")
	impostor := github.User{Login: "bob", Type: "User"}
	for _, tt := range []struct {
		name   string
		status report.Status
		issues []github.Issue
		op     Op // "" = nothing
		number int
		first  time.Time // the first_seen the new body records
	}{
		{"drift appears: a new issue", report.StatusDrifted, nil, OpCreate, 0, t1},
		{"pending appears: a new issue", report.StatusPending, nil, OpCreate, 0, t1},
		{"an error is reported, not hidden", report.StatusFailed, nil, OpCreate, 0, t1},
		{"still drifted, nothing changed: left alone", report.StatusDrifted, []github.Issue{issueFor(3, web, "open", t0, botUser)}, "", 0, time.Time{}},
		{"the drift changed: edited in place, first seen kept", report.StatusDrifted, []github.Issue{issueFor(3, otherDrift(web), "open", t0, botUser)}, OpEdit, 3, t0},
		{"the body edited by hand: written again", report.StatusDrifted, []github.Issue{edited(issueFor(3, web, "open", t0, botUser), func(is *github.Issue) { is.Body += "\nfixed on Monday" })}, OpEdit, 3, t0},
		{"the title edited by hand: written again", report.StatusDrifted, []github.Issue{edited(issueFor(3, web, "open", t0, botUser), func(is *github.Issue) { is.Title = "ignore" })}, OpEdit, 3, t0},
		{"CRLF line ends (an edit in the browser): written again", report.StatusDrifted, []github.Issue{edited(issueFor(3, web, "open", t0, botUser), func(is *github.Issue) { is.Body = strings.ReplaceAll(is.Body, "\n", "\r\n") })}, OpEdit, 3, t0},
		{"an older tfgate's body, no fingerprints: written once", report.StatusDrifted, []github.Issue{edited(issueFor(3, web, "open", t0, botUser), olderBody)}, OpEdit, 3, t0},
		{"the diff edited by hand, the metadata line kept: written again", report.StatusDrifted, []github.Issue{edited(issueFor(3, web, "open", t0, botUser), func(is *github.Issue) { is.Body = strings.Replace(is.Body, `"v2"`, `"v9"`, 1) })}, OpEdit, 3, t0},
		{"now failing: the open issue says so", report.StatusFailed, []github.Issue{issueFor(3, web, "open", t0, botUser)}, OpEdit, 3, t0},
		{"back in sync: closed", report.StatusInSync, []github.Issue{issueFor(3, web, "open", t0, botUser)}, OpClose, 3, t0},
		{"in sync, issue closed: nothing", report.StatusInSync, []github.Issue{issueFor(3, web, "closed", t0, botUser)}, "", 0, time.Time{}},
		{"in sync, no issue: nothing", report.StatusInSync, nil, "", 0, time.Time{}},
		{"returns: the closed issue reopens, first seen anew", report.StatusDrifted, []github.Issue{issueFor(3, web, "closed", t0, botUser)}, OpReopen, 3, t1},
		{"interrupted: nothing", report.StatusInterrupted, []github.Issue{issueFor(3, web, "open", t0, botUser)}, "", 0, time.Time{}},
		{"someone else's issue with the marker is ignored", report.StatusDrifted, []github.Issue{issueFor(3, web, "open", t0, impostor)}, OpCreate, 0, t1},
		{"another project's issue is ignored", report.StatusDrifted, []github.Issue{issueFor(3, driftedProject("db"), "open", t0, botUser)}, OpCreate, 0, t1},
		{"the open one wins over a newer closed one", report.StatusDrifted, []github.Issue{issueFor(5, web, "closed", t0, botUser), issueFor(3, otherDrift(web), "open", t0, botUser)}, OpEdit, 3, t0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			run := report.Run{Kind: report.KindDrift, Projects: []report.Project{withStatus(web, tt.status)}}
			acts := PlanDriftIssues(run, tt.issues, bot, DriftBodyOptions{Now: t1})
			if tt.op == "" {
				if len(acts) != 0 {
					t.Fatalf("actions %+v, want none", acts)
				}
				return
			}
			if len(acts) != 1 || acts[0].Op != tt.op || acts[0].Number != tt.number {
				t.Fatalf("actions %+v, want one %s of #%d", acts, tt.op, tt.number)
			}
			st, ok := ParseDriftState(acts[0].Body)
			if !ok || !st.FirstSeen.Equal(tt.first) || st.Status != tt.status {
				t.Errorf("state %+v %v, want %s first seen %s", st, ok, tt.status, tt.first)
			}
			if m, ok := ParseRecordMarker(acts[0].Body); !ok || m.Kind != "drift" || m.Project != "web" {
				t.Errorf("marker %+v %v", m, ok)
			}
			if (tt.op == OpClose || tt.op == OpReopen) != (acts[0].Note != "") {
				t.Errorf("comment %q for %s", acts[0].Note, tt.op)
			}
		})
	}
}

func TestBody(t *testing.T) {
	p := driftedProject("envs/prod/network")
	body := DriftBody(p, DriftState{Status: p.Status, FirstSeen: t0}, DriftBodyOptions{Now: t1, Commit: "0123456789", RunURL: "https://github.com/acme/infra/actions/runs/1", Version: "v1"})
	for _, want := range []string{
		"<!-- tfgate:drift project=envs/prod/network -->\n<!-- tfgate:drift-state status=drifted first_seen=2026-11-27T03:00:00Z digest=",
		"drifted since 2026-11-27 03:00 UTC · unchanged since 2026-11-29 03:00 UTC",
		`content: "v1" → "v2"`, "secret: (sensitive) → (sensitive)", "**Not applied from Git:** none", "never fixes it", "Commit `0123456`",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("body lacks %q:\n%s", want, body)
		}
	}
	closed := DriftBody(withStatus(p, report.StatusInSync), DriftState{Status: report.StatusInSync, FirstSeen: t0}, DriftBodyOptions{Now: t1})
	if !strings.Contains(closed, "back in sync at 2026-11-29 03:00 UTC") || strings.Contains(closed, "content") {
		t.Errorf("in-sync body:\n%s", closed)
	}
	failed := DriftBody(withStatus(p, report.StatusFailed), DriftState{Status: report.StatusFailed, FirstSeen: t0}, DriftBodyOptions{Now: t1})
	if !strings.Contains(failed, "Error: boom") {
		t.Errorf("failed body hides the error:\n%s", failed)
	}
}

func TestBodyWithinLimit(t *testing.T) {
	p := driftedProject("big")
	for i := 0; i < 3000; i++ {
		p.Changes.Drift = append(p.Changes.Drift, plan.Resource{Address: "fakecloud_object.o" + strings.Repeat("x", 40), Action: plan.ActionUpdate,
			Attributes: []plan.Attribute{{Path: "content", Before: plan.Value{Text: `"a"`}, After: plan.Value{Text: `"b"`}}}})
	}
	body := DriftBody(p, DriftState{Status: p.Status, FirstSeen: t0}, DriftBodyOptions{Now: t1})
	if n := utf8.RuneCountInString(body); n > github.MaxCommentChars {
		t.Fatalf("body has %d characters, GitHub allows %d", n, github.MaxCommentChars)
	}
	if !strings.Contains(body, "never fixes it") {
		t.Error("the body lost its end")
	}
}

func TestTitle(t *testing.T) {
	if got := DriftTitle(driftedProject("envs/prod/network")); got != "Drift: envs/prod/network — infrastructure changed outside Terraform" {
		t.Errorf("Title = %q", got)
	}
	long := DriftTitle(driftedProject(strings.Repeat("ü", 400)))
	if n := utf8.RuneCountInString(long); n > github.MaxIssueTitle {
		t.Errorf("title has %d characters", n)
	}
	if got := DriftTitle(withStatus(driftedProject("a\nb"), report.StatusPending)); got != "Drift: a b — code in Git is not applied" {
		t.Errorf("Title = %q", got)
	}
}
