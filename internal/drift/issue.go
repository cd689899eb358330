package drift

import (
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/render"
	"github.com/tfgate/tfgate/internal/report"
)

// MarkerKind names drift issues in their marker: <!-- tfgate:drift project=NAME -->.
const MarkerKind = "drift"

// DefaultLabels label drift issues when the config names none.
var DefaultLabels = []string{"drift"}

// GitHub's limits on an issue.
const (
	MaxTitleChars = 256
	MaxBodyChars  = github.MaxCommentChars
)

// State is what an issue's hidden metadata remembers between runs: the status it last
// reported and when the current episode (drift, pending code or errors, until the project is
// back in sync) was first seen.
type State struct {
	Status    report.Status
	FirstSeen time.Time
}

var stateRE = regexp.MustCompile(`^<!-- tfgate:drift-state status=([a-z_]+) first_seen=([0-9TZ:+-]+) -->$`)

func (s State) line() string {
	return fmt.Sprintf("<!-- tfgate:drift-state status=%s first_seen=%s -->", s.Status, s.FirstSeen.UTC().Format(time.RFC3339))
}

// ParseState reads an issue body's metadata from where Body writes it, the line after the
// project marker: a line further down is the report's text, never metadata.
func ParseState(body string) (State, bool) {
	_, rest, _ := strings.Cut(body, "\n")
	line, _, _ := strings.Cut(rest, "\n")
	g := stateRE.FindStringSubmatch(strings.TrimSuffix(line, "\r"))
	if g == nil {
		return State{}, false
	}
	t, err := time.Parse(time.RFC3339, g[2])
	if err != nil {
		return State{}, false
	}
	return State{Status: report.Status(g[1]), FirstSeen: t}, true
}

// BodyOptions are what an issue says about the run that wrote it.
type BodyOptions struct {
	Now     time.Time // when the project was checked
	Commit  string    // the commit checked
	RunURL  string
	Version string
}

// Title is the issue's title for a project's status, within GitHub's 256 characters.
func Title(p report.Project) string {
	what := "infrastructure changed outside Terraform"
	switch p.Status {
	case report.StatusPending:
		what = "code in Git is not applied"
	case report.StatusFailed:
		what = "drift check failed"
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
	room := MaxTitleChars - utf8.RuneCountInString("Drift: "+suffix)
	if utf8.RuneCountInString(name) > room {
		name = string([]rune(name)[:room-1]) + "…"
	}
	return "Drift: " + name + suffix
}

// Body is a project's whole issue body: the marker, the metadata, the status line, the
// redacted details and how to resolve it, within GitHub's limit.
func Body(p report.Project, st State, o BodyOptions) string {
	var b strings.Builder
	b.WriteString(github.ProjectMarker{Kind: MarkerKind, Project: p.Name}.String() + "\n")
	b.WriteString(st.line() + "\n\n")
	b.WriteString(statusLine(p, st, o.Now) + "\n\n")
	tail := "tfgate reports drift and never fixes it. To resolve: revert the change made outside Terraform, " +
		"or bring the code in line and merge it through a reviewed pull request. This issue is updated on every " +
		"drift check and closed when the project is back in sync.\n\n" +
		render.Footer(render.MarkdownOptions{Commit: o.Commit, RunURL: o.RunURL, Version: o.Version})
	if p.Status != report.StatusInSync {
		room := MaxBodyChars - utf8.RuneCountInString(b.String()) - utf8.RuneCountInString(tail) - 64
		b.WriteString(render.DriftIssueDetails(p, room))
	}
	b.WriteString(tail)
	return b.String()
}

func statusLine(p report.Project, st State, now time.Time) string {
	since, checked := stamp(st.FirstSeen), stamp(now)
	switch p.Status {
	case report.StatusInSync:
		return fmt.Sprintf("**Status:** ✅ back in sync at %s (first seen out of sync %s): infrastructure, state and code agree.", checked, since)
	case report.StatusPending:
		return fmt.Sprintf("**Status:** ⏳ code in Git not applied since %s · last checked %s", since, checked)
	case report.StatusFailed:
		return fmt.Sprintf("**Status:** 💥 the drift check failed (first seen %s) · last checked %s — the infrastructure's state is unknown until it succeeds.", since, checked)
	}
	return fmt.Sprintf("**Status:** ⚡ drifted since %s · last checked %s", since, checked)
}

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") }
