package notify

import (
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/tfgate/tfgate/internal/english"
	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/render"
	"github.com/tfgate/tfgate/internal/report"
)

// DriftKind names drift issues in their marker: <!-- tfgate:drift project=NAME -->.
const DriftKind = "drift"

// DriftLabels label drift issues when the config names none.
var DriftLabels = []string{"drift"}

// DriftState is what a drift issue's hidden metadata remembers between runs: the status it
// last reported and when the current episode (drift, pending code or errors, until the
// project is back in sync) was first seen.
type DriftState struct {
	Status    report.Status
	FirstSeen time.Time
}

// driftStateKind is the marker kind of the metadata line:
//
//	<!-- tfgate:drift-state status=drifted first_seen=2026-11-27T03:00:00Z -->
const driftStateKind = "drift-state"

var (
	statusValueRE = regexp.MustCompile(`^[a-z_]+$`)
	stampValueRE  = regexp.MustCompile(`^[0-9TZ:+-]+$`)
)

func (s DriftState) line() string {
	return tag(driftStateKind, field{"status", string(s.Status)}, field{"first_seen", s.FirstSeen.UTC().Format(time.RFC3339)})
}

// ParseDriftState reads an issue body's metadata from where DriftBody writes it, the line
// after the project marker: a line further down is the report's text, never metadata.
func ParseDriftState(body string) (DriftState, bool) {
	_, rest, _ := strings.Cut(body, "\n")
	line, _, _ := strings.Cut(rest, "\n")
	kind, v, ok := parseTag(strings.TrimSuffix(line, "\r"), []string{"status", "first_seen"}, []*regexp.Regexp{statusValueRE, stampValueRE})
	if !ok || kind != driftStateKind {
		return DriftState{}, false
	}
	t, err := time.Parse(time.RFC3339, v[1])
	if err != nil {
		return DriftState{}, false
	}
	return DriftState{Status: report.Status(v[0]), FirstSeen: t}, true
}

// DriftBodyOptions are what a drift issue says about the run that wrote it.
type DriftBodyOptions struct {
	Now     time.Time // when the project was checked
	Commit  string    // the commit checked
	RunURL  string
	Version string
}

// DriftTitle is the drift issue's title for a project's status, within GitHub's limit.
func DriftTitle(p report.Project) string {
	what := "infrastructure changed outside Terraform"
	switch p.Status {
	case report.StatusPending:
		what = "code in Git is not applied"
	case report.StatusFailed:
		what = "drift check failed"
	case report.StatusCheckFailed:
		what = "a check failed"
	case report.StatusInSync:
		what = "back in sync"
	}
	name := strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, p.Name)
	suffix := " — " + what
	room := github.MaxIssueTitle - utf8.RuneCountInString("Drift: "+suffix)
	name = english.Clip(name, room)
	return "Drift: " + name + suffix
}

// DriftBody is a project's whole drift issue body: the marker, the metadata, the status line, the
// redacted details and how to resolve it, within GitHub's limit.
func DriftBody(p report.Project, st DriftState, o DriftBodyOptions) string {
	var b strings.Builder
	b.WriteString(RecordMarker{Kind: DriftKind, Project: p.Name}.String() + "\n")
	b.WriteString(st.line() + "\n\n")
	b.WriteString(statusLine(p, st, o.Now) + "\n\n")
	tail := "tfgate reports drift and never fixes it. To resolve: revert the change made outside Terraform, " +
		"or bring the code in line and merge it through a reviewed pull request. This issue is updated on every " +
		"drift check and closed when the project is back in sync.\n\n" +
		render.Footer(render.MarkdownOptions{Commit: o.Commit, RunURL: o.RunURL, Version: o.Version})
	fold := render.DriftFoldBack(p) // tfgate drift --fold-back-pr (foldback_pr.go)
	if p.Status != report.StatusInSync {
		room := github.MaxCommentChars - utf8.RuneCountInString(b.String()) - utf8.RuneCountInString(tail+fold) - 64
		b.WriteString(render.DriftIssueDetails(p, room))
	}
	b.WriteString(fold)
	b.WriteString(tail)
	return b.String()
}

func statusLine(p report.Project, st DriftState, now time.Time) string {
	since, checked := stamp(st.FirstSeen), stamp(now)
	switch p.Status {
	case report.StatusInSync:
		return fmt.Sprintf("**Status:** ✅ back in sync at %s (first seen out of sync %s): infrastructure, state and code agree.", checked, since)
	case report.StatusPending:
		return fmt.Sprintf("**Status:** ⏳ code in Git not applied since %s · last checked %s", since, checked)
	case report.StatusCheckFailed:
		return fmt.Sprintf("**Status:** 🚨 a check failed (first seen %s) · last checked %s — no drift: the infrastructure does not do what its checks assert.", since, checked)
	case report.StatusFailed:
		return fmt.Sprintf("**Status:** 💥 the drift check failed (first seen %s) · last checked %s — the infrastructure's state is unknown until it succeeds.", since, checked)
	}
	return fmt.Sprintf("**Status:** ⚡ drifted since %s · last checked %s", since, checked)
}

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") }
