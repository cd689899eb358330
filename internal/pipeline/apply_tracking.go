package pipeline

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/tfgate/tfgate/internal/ci"
	"github.com/tfgate/tfgate/internal/config"
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
// (recover.go). Like drift's issues, they are found by a hidden marker and their author:
// nobody else's issue is edited or trusted.

// TrackingKind is the marker kind of the tracking issues, TrackingLabel their label (the
// one they are listed by).
const (
	TrackingKind  = "not-applied"
	TrackingLabel = "tfgate:not-applied"
)

// trackingStateKind marks the hidden line that keeps the issue's entries, for the next run
// to add to: their JSON, base64url-encoded, so that no text in it can end the comment and
// the line has the form of tfgate's other markers.
const trackingStateKind = "<!-- tfgate:not-applied-state entries="

// track opens, updates and closes the run's tracking issues and notes what it did in the
// run (so that the audit comment links them). It lists the labelled issues once (all
// states) when the run has any project to track or that might close one.
func (a *applier) track(ctx context.Context) error {
	gh := a.req.GitHub
	if a.req.DryRun || gh == nil || gh.API == nil || a.run.Commit == "" {
		return nil
	}
	skip := a.untracked()
	var behind, inLine []int
	for i, p := range a.run.Projects {
		switch {
		case skip[p.Name]:
		case p.Status == report.StatusApplied:
			inLine = append(inLine, i)
		case p.Status == report.StatusRefused || !p.Status.Succeeded():
			behind = append(behind, i)
		}
	}
	if len(behind) == 0 && len(inLine) == 0 {
		return nil
	}
	id, err := a.whoAmI(ctx)
	if err != nil {
		return err
	}
	issues, err := gh.API.ListIssues(ctx, a.repo, github.IssueFilter{State: "all", Labels: []string{TrackingLabel}})
	if err != nil {
		return fmt.Errorf("list the tracking issues: %w", err)
	}
	var errs []string
	labelled := false
	for _, i := range behind {
		p := a.run.Projects[i]
		is, found := findTracking(issues, p.Name, id)
		if !found && !labelled {
			if err := ensureTrackingLabel(ctx, gh.API, a.repo); err != nil {
				errs = append(errs, err.Error())
			}
			labelled = true
		}
		n, err := a.trackBehind(ctx, p, is, found)
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", p.Name, err))
			continue
		}
		a.run.Notes = append(a.run.Notes, fmt.Sprintf("%s: the default branch is ahead of the infrastructure — tracking issue #%d has the reviewed way back (tfgate recover %s).", p.Name, n, p.Name))
	}
	for _, i := range inLine {
		p := a.run.Projects[i]
		is, found := findTracking(issues, p.Name, id)
		if !found || is.State != "open" {
			continue
		}
		entries := parseTrackingState(is.Body)
		comment := render.TrackingResolved(a.run.Commit, a.run.PR, p.Gate.Approvers(), gh.Env.RunURL(), a.req.Now())
		if _, err := gh.API.CreateIssueComment(ctx, a.repo, is.Number, comment); err != nil {
			errs = append(errs, fmt.Sprintf("%s: close tracking issue #%d: %v", p.Name, is.Number, err))
			continue
		}
		closed := "closed"
		if _, err := gh.API.EditIssue(ctx, a.repo, is.Number, github.IssueRequest{State: &closed}); err != nil {
			errs = append(errs, fmt.Sprintf("%s: close tracking issue #%d: %v", p.Name, is.Number, err))
			continue
		}
		a.run.Notes = append(a.run.Notes, fmt.Sprintf("%s: in line with the default branch again — closed tracking issue #%d (the merges it recovers: %s).", p.Name, is.Number, entryList(entries)))
	}
	if len(errs) > 0 {
		return fmt.Errorf("tracking issues: %s", strings.Join(errs, "; "))
	}
	return nil
}

// trackBehind records the project's merge as not applied: a new issue, the open one
// updated (and, for a merge it did not list yet, a comment), or the closed one reopened.
func (a *applier) trackBehind(ctx context.Context, p report.Project, is github.Issue, found bool) (int, error) {
	api := a.req.GitHub.API
	e := render.TrackingEntry{Merge: a.run.Commit, PR: a.run.PR, Status: strings.ReplaceAll(string(p.Status), "_", " "), Reason: notAppliedReason(p),
		At: a.req.Now().UTC(), RunURL: a.req.GitHub.Env.RunURL()}
	var entries []render.TrackingEntry
	open := found && is.State == "open"
	if open {
		entries = parseTrackingState(is.Body)
	}
	again := slices.ContainsFunc(entries, func(o render.TrackingEntry) bool { return o.Merge == e.Merge })
	entries = slices.DeleteFunc(entries, func(o render.TrackingEntry) bool { return o.Merge == e.Merge })
	entries = append(entries, e)
	tr := render.Tracking{Project: p.Name, Dir: p.Dir, Workspace: p.Workspace, Entries: entries,
		Recover: strings.TrimPrefix(p.Dir+"/"+RecoverFile, "./")}
	title, body := render.TrackingTitle(tr), trackingBody(tr)
	if !found {
		labels := []string{TrackingLabel}
		created, err := api.CreateIssue(ctx, a.repo, github.IssueRequest{Title: &title, Body: &body, Labels: &labels})
		return created.Number, err
	}
	if !again { // a re-run of the same merge updates the body only
		if _, err := api.CreateIssueComment(ctx, a.repo, is.Number, render.TrackingNotApplied(e, !open)); err != nil {
			return is.Number, err
		}
	}
	req := github.IssueRequest{Title: &title, Body: &body}
	if !open {
		state := "open"
		req.State = &state
	}
	_, err := api.EditIssue(ctx, a.repo, is.Number, req)
	return is.Number, err
}

// untracked are the run's items that get no tracking issue: a project in observe mode
// (tfgate never applies it) and the review-only items (files outside every project, a
// dropped project: their refusal refuses the merge's projects, which are tracked).
func (a *applier) untracked() map[string]bool {
	out := map[string]bool{}
	for _, t := range a.targets {
		if t.review != "" || t.p.Mode == config.ModeObserve {
			out[t.p.Name] = true
		}
	}
	return out
}

// whoAmI is tfgate's identity, asked once per run.
func (a *applier) whoAmI(ctx context.Context) (github.Identity, error) {
	if a.identity != "" {
		return github.Identity{Login: a.identity, Source: "this run"}, nil
	}
	gh := a.req.GitHub
	id, err := github.ResolveIdentity(ctx, gh.API, gh.Identity)
	if err == nil {
		a.identity = id.Login
	}
	return id, err
}

// findTracking is the project's tracking issue: its marker, written by tfgate; the newest
// open one, else the newest closed one.
func findTracking(issues []github.Issue, project string, id github.Identity) (github.Issue, bool) {
	var best github.Issue
	found := false
	for _, is := range issues {
		m, ok := github.ParseProjectMarker(is.Body)
		if !ok || m.Kind != TrackingKind || m.Project != project || !id.Is(is.Author) {
			continue
		}
		open, bestOpen := is.State == "open", best.State == "open"
		if !found || open && !bestOpen || open == bestOpen && is.Number > best.Number {
			best, found = is, true
		}
	}
	return best, found
}

// trackingBody is the whole issue body: marker, text, and the hidden state.
func trackingBody(tr render.Tracking) string {
	state, _ := json.Marshal(tr.Entries)
	return github.ProjectMarker{Kind: TrackingKind, Project: tr.Project}.String() + "\n" + render.TrackingBody(tr) + "\n" +
		trackingStateKind + base64.RawURLEncoding.EncodeToString(state) + " -->\n"
}

// parseTrackingState reads the entries an earlier run kept in the body; none when the
// line is missing or does not parse (the issue then lists this run's merge only).
func parseTrackingState(body string) []render.TrackingEntry {
	i := strings.LastIndex(body, trackingStateKind)
	if i < 0 {
		return nil
	}
	line, _, _ := strings.Cut(body[i+len(trackingStateKind):], "\n")
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
		items[i] = ci.ShortSHA(e.Merge)
		if e.PR > 0 {
			items[i] += fmt.Sprintf(" (#%d)", e.PR)
		}
	}
	return strings.Join(items, ", ")
}

// ensureTrackingLabel creates the label when the repository lacks it (GitHub compares names
// without case).
func ensureTrackingLabel(ctx context.Context, api github.API, repo github.Repo) error {
	have, err := api.ListLabels(ctx, repo)
	if err != nil {
		return fmt.Errorf("list labels: %w", err)
	}
	if slices.ContainsFunc(have, func(h github.Label) bool { return strings.EqualFold(h.Name, TrackingLabel) }) {
		return nil
	}
	err = api.CreateLabel(ctx, repo, github.Label{Name: TrackingLabel, Color: "b60205", Description: "A merged change tfgate did not apply"})
	if err != nil && github.HTTPStatus(err) != http.StatusUnprocessableEntity { // created meanwhile
		return fmt.Errorf("create label %q: %w", TrackingLabel, err)
	}
	return nil
}

// notAppliedReason is why the project was not applied: the gate's reasons, or the error.
func notAppliedReason(p report.Project) string {
	var parts []string
	if p.Gate != nil {
		parts = append(parts, p.Gate.Reasons...)
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
