package render

import (
	"fmt"
	"strings"
	"time"

	"github.com/tfgate/tfgate/internal/git"
	"github.com/tfgate/tfgate/internal/report"
)

// A tracking issue says that the default branch holds a merged change of one project that
// the infrastructure does not (the apply refused or failed), which merges those were and
// why, and the one reviewed way back. It is opened and kept up to date by apply runs, and
// closed by the first apply that brings the project in line again.

// TrackingEntry is one merge whose change to the project was not applied.
type TrackingEntry struct {
	Merge  string    `json:"merge"`  // the merge commit (full sha)
	PR     int       `json:"pr"`     // its pull request; 0 = none (a direct push)
	Status string    `json:"status"` // refused, failed, interrupted, not started
	Reason string    `json:"reason"` // why, already masked
	At     time.Time `json:"at"`
	RunURL string    `json:"run_url"`
}

// Tracking is a project's tracking issue.
type Tracking struct {
	Project, Dir, Workspace string
	Entries                 []TrackingEntry // oldest first
	// Recover is the file `tfgate recover` writes for the project, root-relative.
	Recover string
}

// TrackingTitle is the title (at most 256 characters, GitHub's limit).
func TrackingTitle(t Tracking) string {
	return fit("Not applied: "+trackingLabel(t)+" — the default branch is ahead of the infrastructure", 256)
}

func trackingLabel(t Tracking) string {
	return projectLabel(report.Project{Name: t.Project, Dir: t.Dir, Workspace: t.Workspace})
}

// TrackingBody is the body after the marker line: what was not applied, then the
// way back. Entries beyond the last 20 are summarised in one line (they stay in history).
func TrackingBody(t Tracking) string {
	var b strings.Builder
	label := trackingLabel(t)
	fmt.Fprintf(&b, "**%s is not applied:** the default branch holds merged changes of %s that the infrastructure does not.\n\n",
		mdText(label), mdCode(fit(label, 200)))
	b.WriteString("| merge | pull request | result | why | run |\n|---|---|---|---|---|\n")
	entries := t.Entries
	if n := len(entries) - maxTrackingRows; n > 0 {
		fmt.Fprintf(&b, "| … | | | %s | |\n", mdText(fmt.Sprintf("%d earlier merges not shown", n)))
		entries = entries[n:]
	}
	for _, e := range entries {
		pr := "—"
		if e.PR > 0 {
			pr = fmt.Sprintf("#%d", e.PR) // a real reference: GitHub links the pull request
		}
		run := "—"
		if u := safeURL(e.RunURL); u != "" {
			run = "[run](" + u + ")"
		}
		fmt.Fprintf(&b, "| `%s` | %s | ⏭ %s | %s | %s |\n", git.ShortSHA(e.Merge), pr, mdText(e.Status), mdText(fit(firstLine(e.Reason), 300)), run)
	}
	fmt.Fprintf(&b, "\n### The way back: a reviewed pull request\n\n")
	fmt.Fprintf(&b, "1. On a branch from the default branch, run %s and commit the file it writes, %s (comments only: it changes the project without changing what it does).\n",
		mdCode("tfgate recover "+shellWord(t.Project)), mdCode(fit(t.Recover, 200)))
	b.WriteString("2. Open a pull request. tfgate plans the project as the default branch has it, against the infrastructure as it is now; reviewers approve that plan under the default branch's rules, like any other.\n")
	b.WriteString("3. Merge it: the apply applies exactly that reviewed plan and closes this issue, naming the pull request.\n\n")
	b.WriteString("Any later pull request whose reviewed plan of the project is applied closes this issue too. tfgate never applies a plan nobody reviewed.\n")
	return b.String()
}

// maxTrackingRows bounds the table (a project refused on every merge for months
// must not grow the body past GitHub's limit).
const maxTrackingRows = 20

// TrackingNotApplied is the comment when a further merge is not applied while the issue is
// open, or when a closed one is reopened.
func TrackingNotApplied(e TrackingEntry, reopened bool) string {
	pr := ""
	if e.PR > 0 {
		pr = fmt.Sprintf(" (#%d)", e.PR)
	}
	lead := "⏭ Not applied either"
	if reopened {
		lead = "⏭ Not applied again; reopening"
	}
	return fmt.Sprintf("%s: the merge `%s`%s, %s: %s", lead, git.ShortSHA(e.Merge), pr, mdText(e.Status), mdText(fit(firstLine(e.Reason), 300)))
}

// TrackingResolved is the comment that closes the issue: which apply brought the project in
// line with the default branch, from whose reviewed plan.
func TrackingResolved(merge string, pr int, approvers []string, runURL string, at time.Time) string {
	by := ""
	if len(approvers) > 0 {
		by = ", approved by " + mdLogins(approvers)
	}
	run := ""
	if u := safeURL(runURL); u != "" {
		run = " ([run](" + u + "))"
	}
	return fmt.Sprintf("✅ In line with the default branch again at %s: the merge `%s` of #%d applied its reviewed plan%s%s. It covers the merges listed above. Closing; tfgate reopens this issue if a merged change of the project is not applied again.",
		at.UTC().Format("2006-01-02 15:04 UTC"), git.ShortSHA(merge), pr, by, run)
}

// shellWord quotes a project name for a command line, when needed.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._/-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
