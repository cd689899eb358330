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
//	<!-- tfgate:drift-state status=drifted first_seen=2026-11-27T03:00:00Z digest=… sum=… -->
//
// digest and sum (driftMeta) let a run leave an unchanged issue alone; a line without them
// (an older tfgate's) reads as changed, so the issue is rewritten once.
const driftStateKind = "drift-state"

var (
	statusValueRE = regexp.MustCompile(`^[a-z_]+$`)
	stampValueRE  = regexp.MustCompile(`^[0-9TZ:+-]+$`)
	hexValueRE    = regexp.MustCompile(`^[0-9a-f]{32}$`)
)

// ParseDriftState reads an issue body's metadata from where DriftBody writes it, the line
// after the project marker: a line further down is the report's text, never metadata.
func ParseDriftState(body string) (DriftState, bool) {
	m, ok := parseDriftMeta(body)
	return m.DriftState, ok
}

// DriftBodyOptions are what a drift issue says about the run that wrote it.
type DriftBodyOptions struct {
	Now     time.Time // when the project was checked: "unchanged since" in the body written
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
	marker := RecordMarker{Kind: DriftKind, Project: p.Name}.String()
	text := driftText(p, st, o)
	meta := driftMeta{DriftState: st, digest: driftDigest(p, st), sum: textSum(marker, text)}
	return marker + "\n" + meta.line() + "\n" + text
}

// driftText is the body after its metadata line. The status line's second date is when
// the body was written: it stays true on the runs that leave the issue alone (driftMeta).
func driftText(p report.Project, st DriftState, o DriftBodyOptions) string {
	var b strings.Builder
	b.WriteString("\n" + statusLine(p, st, o.Now) + "\n\n")
	tail := "tfgate reports drift and never fixes it. To resolve: revert the change made outside Terraform, " +
		"or bring the code in line and merge it through a reviewed pull request. Every drift check edits this issue " +
		"when what it finds changes, and closes it when the project is back in sync: while it is open, the last check " +
		"still found what it says.\n\n" +
		render.Footer(render.MarkdownOptions{Commit: o.Commit, RunURL: o.RunURL, Version: o.Version})
	fold := render.DriftFoldBack(p) // tfgate drift --fold-back-pr (foldback_pr.go)
	if p.Status != report.StatusInSync {
		room := github.MaxCommentChars - utf8.RuneCountInString(RecordMarker{Kind: DriftKind, Project: p.Name}.String()) -
			metaReserve - utf8.RuneCountInString(b.String()) - utf8.RuneCountInString(tail+fold) - 64
		b.WriteString(render.DriftIssueDetails(p, room))
	}
	b.WriteString(fold)
	b.WriteString(tail)
	return b.String()
}

func statusLine(p report.Project, st DriftState, now time.Time) string {
	since, written := stamp(st.FirstSeen), stamp(now)
	switch p.Status {
	case report.StatusInSync:
		return fmt.Sprintf("**Status:** ✅ back in sync at %s (first seen out of sync %s): infrastructure, state and code agree.", written, since)
	case report.StatusPending:
		return fmt.Sprintf("**Status:** ⏳ code in Git not applied since %s · unchanged since %s", since, written)
	case report.StatusCheckFailed:
		return fmt.Sprintf("**Status:** 🚨 a check failed (first seen %s) · unchanged since %s — no drift: the infrastructure does not do what its checks assert.", since, written)
	case report.StatusFailed:
		return fmt.Sprintf("**Status:** 💥 the drift check failed (first seen %s) · unchanged since %s — the infrastructure's state is unknown until it succeeds.", since, written)
	}
	return fmt.Sprintf("**Status:** ⚡ drifted since %s · unchanged since %s", since, written)
}

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") }
