package notify

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tfgate/tfgate/internal/git"
	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/render"
	"github.com/tfgate/tfgate/internal/report"
)

// A merged change that was not applied — refused (a stale plan, an approval missing at
// apply time, an expired artifact), failed, interrupted, never started — leaves the default
// branch ahead of the infrastructure. Each apply run keeps one tracking issue per such
// project: opened (or reopened) naming the merge, its pull request and why, updated by
// every further merge that is not applied either, and closed with a note by the first run
// that applies a reviewed plan of the project (which then matches the default branch: the
// bundle's inputs were verified against the merge). The issue gives the way back
// (pipeline/run_recover.go). They are records like drift's issues: a Tracker of their own kind.

// TrackingKind is the record marker kind of the tracking issues, TrackingLabel their label
// (the one they are listed by).
const (
	TrackingKind  = "not-applied"
	TrackingLabel = "tfgate:not-applied"
)

// trackingStateTag starts the hidden line that keeps the issue's entries, for the next run
// to add to: their JSON, base64url-encoded, so that no text in it can end the comment and
// the line has the grammar of tfgate's other markers.
const trackingStateTag = "<!-- tfgate:not-applied-state entries="

// Tracking is what an apply run gives for its tracking issues.
type Tracking struct {
	API      github.API
	Repo     github.Repo
	Identity github.Identity
	Run      report.Run // the merge's run: Commit, PR and the projects' outcomes
	// Skip are the run's items that get no tracking issue (a project in observe mode, which
	// tfgate never applies; review-only items, whose refusal refuses the merge's projects).
	Skip      map[string]bool
	RecoverAs func(dir string) string // the file `tfgate recover` writes for a project dir
	RunURL    string
	Now       time.Time
}

// TrackingChange is one tracking issue change for the run's project at index Project, and
// the note the run's report (and so its audit comment) gets when it is done.
type TrackingChange struct {
	Project int
	Change
	RunNote func(number int) string
}

func (t Tracking) tracker() Tracker {
	return Tracker{API: t.API, Repo: t.Repo, Identity: t.Identity, Kind: TrackingKind, Labels: []string{TrackingLabel},
		LabelColor: "b60205", LabelDescription: "A merged change tfgate did not apply"}
}

// PublishTracking opens, updates and closes the run's tracking issues and returns the notes
// for the run's report. It lists the labelled issues once (all states), and only when the
// run has a project to track or one that might close an issue.
func PublishTracking(ctx context.Context, t Tracking) ([]string, error) {
	if !slices.ContainsFunc(t.Run.Projects, func(p report.Project) bool { return tracked(p, t.Skip) != "" }) {
		return nil, nil
	}
	tr := t.tracker()
	issues, err := tr.List(ctx)
	if err != nil {
		return nil, err
	}
	changes := PlanTracking(t, issues)
	var notes, errs []string
	if slices.ContainsFunc(changes, func(c TrackingChange) bool { return c.Op == OpCreate }) {
		if err := tr.EnsureLabels(ctx); err != nil {
			errs = append(errs, err.Error())
		}
	}
	for _, c := range changes {
		is, err := tr.Apply(ctx, c.Change)
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %s tracking issue: %v", t.Run.Projects[c.Project].Name, c.Op, err))
			continue
		}
		n := is.Number
		if n == 0 {
			n = c.Number
		}
		notes = append(notes, c.RunNote(n))
	}
	if len(errs) > 0 {
		return notes, fmt.Errorf("tracking issues: %s", strings.Join(errs, "; "))
	}
	return notes, nil
}

// tracked says what the run means for the project's tracking issue: "behind" (a merged
// change not applied), "in line" (a reviewed plan applied) or "" (nothing).
func tracked(p report.Project, skip map[string]bool) string {
	switch {
	case skip[p.Name]:
		return ""
	case p.Status == report.StatusApplied:
		return "in line"
	case p.Status == report.StatusRefused || !p.Status.Succeeded():
		return "behind"
	}
	return ""
}

// PlanTracking decides every tracking issue change of a run from the issues listed (all
// states): a pure function, so each case is a table row.
func PlanTracking(t Tracking, issues []github.Issue) []TrackingChange {
	var out []TrackingChange
	for i, p := range t.Run.Projects {
		rs := Records(issues, TrackingKind, p.Name, t.Identity)
		found := len(rs) > 0
		var is github.Issue
		if found {
			is = rs[0]
		}
		open := found && is.State == "open"
		switch tracked(p, t.Skip) {
		case "behind":
			out = append(out, TrackingChange{Project: i, Change: t.behind(p, is, found, open), RunNote: func(n int) string {
				return fmt.Sprintf("%s: the default branch is ahead of the infrastructure — tracking issue #%d has the reviewed way back (tfgate recover %s).", p.Name, n, p.Name)
			}})
		case "in line":
			if !open {
				continue
			}
			entries := parseTrackingState(is.Body)
			out = append(out, TrackingChange{Project: i, Change: Change{Op: OpClose, Number: is.Number, Body: is.Body,
				Note: render.TrackingResolved(t.Run.Commit, t.Run.PR, p.Gate.Approvers(), t.RunURL, t.Now)},
				RunNote: func(n int) string {
					return fmt.Sprintf("%s: in line with the default branch again — closed tracking issue #%d (the merges it recovers: %s).", p.Name, n, entryList(entries))
				}})
		}
	}
	return out
}

// behind records the project's merge as not applied: a new issue, the open one updated
// (with a note for a merge it did not list yet; a re-run of the same merge updates the body
// only), or the closed one reopened.
func (t Tracking) behind(p report.Project, is github.Issue, found, open bool) Change {
	e := render.TrackingEntry{Merge: t.Run.Commit, PR: t.Run.PR, Status: strings.ReplaceAll(string(p.Status), "_", " "),
		Reason: notAppliedReason(p), At: t.Now.UTC(), RunURL: t.RunURL}
	var entries []render.TrackingEntry
	if open {
		entries = parseTrackingState(is.Body)
	}
	again := slices.ContainsFunc(entries, func(o render.TrackingEntry) bool { return o.Merge == e.Merge })
	entries = slices.DeleteFunc(entries, func(o render.TrackingEntry) bool { return o.Merge == e.Merge })
	entries = append(entries, e)
	recover := ""
	if t.RecoverAs != nil {
		recover = t.RecoverAs(p.Dir)
	}
	tr := render.Tracking{Project: p.Name, Dir: p.Dir, Workspace: p.Workspace, Entries: entries, Recover: recover}
	c := Change{Title: render.TrackingTitle(tr), Body: trackingBody(tr)}
	switch {
	case !found:
		c.Op = OpCreate
	case open:
		c.Op, c.Number = OpEdit, is.Number
		if !again {
			c.Note = render.TrackingNotApplied(e, false)
		}
	default:
		c.Op, c.Number, c.Note = OpReopen, is.Number, render.TrackingNotApplied(e, true)
	}
	return c
}

// trackingBody is the whole issue body: marker, text, and the hidden state.
func trackingBody(tr render.Tracking) string {
	state, _ := json.Marshal(tr.Entries)
	return RecordMarker{Kind: TrackingKind, Project: tr.Project}.String() + "\n" + render.TrackingBody(tr) + "\n" +
		trackingStateTag + base64.RawURLEncoding.EncodeToString(state) + " -->\n"
}

// parseTrackingState reads the entries an earlier run kept in the body; none when the
// line is missing or does not parse (the issue then lists this run's merge only).
func parseTrackingState(body string) []render.TrackingEntry {
	i := strings.LastIndex(body, trackingStateTag)
	if i < 0 {
		return nil
	}
	line, _, _ := strings.Cut(body[i+len(trackingStateTag):], "\n")
	data, err := base64.RawURLEncoding.DecodeString(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(line), "-->")))
	if err != nil {
		return nil
	}
	var entries []render.TrackingEntry
	if json.Unmarshal(data, &entries) != nil {
		return nil
	}
	return entries
}

func entryList(entries []render.TrackingEntry) string {
	if len(entries) == 0 {
		return "see the issue"
	}
	items := make([]string, len(entries))
	for i, e := range entries {
		items[i] = git.ShortSHA(e.Merge)
		if e.PR > 0 {
			items[i] += fmt.Sprintf(" (#%d)", e.PR)
		}
	}
	return strings.Join(items, ", ")
}

// notAppliedReason is why the project was not applied: the gate's reasons, or the error.
func notAppliedReason(p report.Project) string {
	var parts []string
	if p.Gate != nil {
		parts = append(parts, p.Gate.Texts()...)
	}
	if p.Error != "" && (p.Status != report.StatusRefused || len(parts) == 0) {
		parts = append(parts, p.Error)
	}
	r := strings.Join(parts, "; ")
	if rs := []rune(r); len(rs) > 1000 {
		r = string(rs[:1000]) + "…"
	}
	return r
}
