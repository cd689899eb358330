package render

import (
	"fmt"
	"strings"

	"github.com/tfgate/tfgate/internal/english"
	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/report"
)

// StepSummaryLimit is GitHub's limit on what one step writes to $GITHUB_STEP_SUMMARY.
const StepSummaryLimit = 1 << 20

// StepSummary is the report for $GITHUB_STEP_SUMMARY: the same markdown as the comment,
// in one piece. Over StepSummaryLimit (opts.Limit when set, for tests) it keeps the
// verdict, the table and as many project sections as fit, and says which projects'
// details it leaves out and where to find them.
//
// An apply run's summary is its comment (ApplyComment) without the marker. With
// opts.Timings, the timeline (mdTimeline: a Gantt chart of each project's phases) and a
// collapsed timing table (per project: total and each phase) come before the footer.
func StepSummary(r report.Run, opts MarkdownOptions) string {
	limit := opts.limit(StepSummaryLimit)
	timing := mdTimeline(r, opts.Timings) + mdTimings(r, opts.Timings)
	limit -= cost(timing)
	if r.Kind == report.KindApply {
		s := fitApply(r, opts, limit, false, "the CI run's log")
		if foot := footerFor(r, opts); timing != "" && strings.HasSuffix(s, foot) {
			return strings.TrimSuffix(s, foot) + timing + foot
		}
		return s + timing
	}
	sp := splitDocument(r, opts, limit-4096) // room for the note below
	var b strings.Builder
	b.WriteString(sp.parts[0].body.String())
	if len(sp.parts) > 1 {
		var left []string
		seen := map[string]bool{}
		for _, p := range sp.parts[1:] {
			for _, n := range p.names {
				if !seen[n] {
					seen[n] = true
					left = append(left, n)
				}
			}
		}
		names := make([]string, len(left))
		for i, n := range left {
			names[i] = mdCode(fit(n, 80))
		}
		fmt.Fprintf(&b, "> [!WARNING]\n> **This summary is shortened** to fit GitHub's %d KiB limit for a job summary: the details of %s (%s) are not shown, or only in part. The pull request comment and the CI log have the whole report.\n\n",
			opts.limit(StepSummaryLimit)>>10, english.ClipList(names, 20), english.Plural(len(left), "project", "projects"))
	}
	b.WriteString(timing)
	b.WriteString(footerFor(r, opts))
	return b.String()
}

// StatusDescription is the commit status line, e.g. "3 projects: +4 ~1 -0, 1 denied",
// within GitHub's github.MaxStatusDescription. It holds no text from the plan or the pull request.
//
// A gate run's is its verdict's description; an apply run's counts the outcomes and names
// the first project that was not applied and why: "2 applied, 1 refused
// (envs/prod/network: policy deny not overridden)", "applied 3 projects". A commit status
// is plain text: those names and reasons are only cleaned of control characters.
func StatusDescription(r report.Run) string {
	if isReview(r.Kind) {
		return reviewStatusDescription(r)
	}
	if len(r.Projects) == 0 {
		if r.Base != "" {
			return "no projects changed"
		}
		return "no projects"
	}
	s := english.Plural(len(r.Projects), "project", "projects") + ":"
	var items []string
	if len(r.Unfinished()) < len(r.Projects) {
		t := r.Totals()
		c := fmt.Sprintf("+%d ~%d -%d", t.Add, t.Change, t.Destroy)
		if t.Replace > 0 {
			c += fmt.Sprintf(" ±%d", t.Replace)
		}
		if !t.HasChanges() {
			c = "no changes"
		}
		items = append(items, c)
		if t.Drift > 0 {
			items = append(items, fmt.Sprintf("%d drifted", t.Drift))
		}
	}
	if n := r.Denied(); n > 0 {
		items = append(items, fmt.Sprintf("%d denied", n))
	}
	for _, st := range []report.Status{report.StatusFailed, report.StatusInterrupted, report.StatusNotStarted, report.StatusRefused} {
		if n := r.Count(st); n > 0 {
			items = append(items, fmt.Sprintf("%d %s", n, statusWord(st)))
		}
	}
	return fit(s+" "+strings.Join(items, ", "), github.MaxStatusDescription)
}
