package render

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tfgate/tfgate/internal/english"
	"github.com/tfgate/tfgate/internal/report"
)

// The job summary's timeline is a Mermaid Gantt chart: a section per project, a bar per
// phase from when the project entered it to when it left it, on a clock axis (the reader's
// local time). It is there to make a slow project or phase stand out, so a large run
// draws its slowest projects and folds the others into one bar, saying so.
const (
	ganttMaxProjects = 20 // sections drawn; beyond, the slowest are kept
	ganttMaxPhases   = 12 // bars per project; beyond, the rest are one bar
	ganttNameRunes   = 48 // a project's label, clipped at its start (the end of a path says most)
)

// Timeline is the Mermaid source of a run's timeline (without a code fence), and what it
// leaves out.
type Timeline struct {
	Source   string // "" when no project has a phase with a start time
	Drawn    int    // projects with a section of their own
	Folded   int    // projects drawn as one bar ("N other projects")
	Projects int    // projects with timed phases: Drawn + Folded
}

// ganttProject is one project's timed phases and when it ran.
type ganttProject struct {
	label       string
	phases      []report.Phase
	first, last time.Time
	failed      bool
	order       int
}

func (g ganttProject) span() time.Duration { return g.last.Sub(g.first) }

// Gantt draws the projects' phases (timings, by project name; a phase without a start time
// is left out) in project order. Over ganttMaxProjects it keeps the slowest (longest from
// its first phase's start to its last phase's end) and draws the others as one bar.
func Gantt(r report.Run, timings map[string][]report.Phase) Timeline {
	projects := ganttProjects(r, timings)
	tl := Timeline{Projects: len(projects)}
	if len(projects) == 0 {
		return tl
	}
	drawn, folded := projects, []ganttProject(nil)
	if len(projects) > ganttMaxProjects {
		bySpan := slices.Clone(projects)
		slices.SortStableFunc(bySpan, func(a, b ganttProject) int { return cmp.Compare(b.span(), a.span()) })
		drawn, folded = bySpan[:ganttMaxProjects], bySpan[ganttMaxProjects:]
		slices.SortFunc(drawn, func(a, b ganttProject) int { return a.order - b.order })
	}
	tl.Drawn, tl.Folded = len(drawn), len(folded)

	labels := make([]string, len(drawn))
	for i, p := range drawn {
		labels[i] = ganttText(p.label)
	}
	var b strings.Builder
	first, last := ganttSpan(drawn)
	b.WriteString(ganttHeader(labels, last.Sub(first)))
	for i, p := range drawn {
		ganttSection(&b, labels[i], p)
	}
	if len(folded) > 0 {
		first, last := ganttSpan(folded)
		b.WriteString("    section " + ganttText(english.Plural(len(folded), "other project", "other projects")) + "\n")
		ganttBar(&b, "all phases", "done, ", first, last)
	}
	tl.Source = b.String()
	return tl
}

// ganttSection writes a project's section: a bar per phase, its last ones as one beyond
// ganttMaxPhases; where a failed project stopped is red ("crit"), waiting grey ("done").
func ganttSection(b *strings.Builder, label string, p ganttProject) {
	b.WriteString("    section " + label + "\n")
	phases := p.phases
	if len(phases) > ganttMaxPhases {
		rest := phases[ganttMaxPhases-1:]
		more := report.Phase{Name: "… " + english.Plural(len(rest), "more phase", "more phases"), Start: rest[0].Start}
		more.Duration = p.last.Sub(more.Start)
		phases = append(slices.Clone(phases[:ganttMaxPhases-1]), more)
	}
	for i, ph := range phases {
		tag := ""
		switch {
		case p.failed && i == len(phases)-1:
			tag = "crit, "
		case ph.Name == "queued":
			tag = "done, "
		}
		ganttBar(b, ph.Name, tag, ph.Start, ph.End())
	}
}

// ganttSpan is when the first of projects started and the last finished.
func ganttSpan(projects []ganttProject) (first, last time.Time) {
	first, last = projects[0].first, projects[0].last
	for _, p := range projects[1:] {
		first, last = earlier(first, p.first), later(last, p.last)
	}
	return first, last
}

func earlier(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// ganttHeader starts the chart: room on the left for the longest section label (Mermaid
// leaves 75 pixels, and a longer label runs into the bars), times in milliseconds since
// the epoch, the axis in the reader's local time — to the millisecond when the projects
// took under a minute, where whole seconds would label every tick alike — and no marker
// for today, which would stretch the axis to the moment the summary is read.
func ganttHeader(labels []string, span time.Duration) string {
	widest := 0
	for _, l := range labels {
		widest = max(widest, utf8.RuneCountInString(l))
	}
	axis := "%H:%M:%S"
	if span < time.Minute {
		axis += ".%L"
	}
	return fmt.Sprintf("%%%%{init: {\"gantt\": {\"leftPadding\": %d}}}%%%%\ngantt\n    dateFormat x\n    axisFormat %s\n    todayMarker off\n",
		min(max(75, 6*widest+24), 320), axis)
}

// ganttBar writes one task: its name, tag, and start and end in milliseconds since the
// epoch (dateFormat x).
func ganttBar(b *strings.Builder, name, tag string, start, end time.Time) {
	fmt.Fprintf(b, "    %s :%s%d, %d\n", ganttTask(name), tag, start.UnixMilli(), end.UnixMilli())
}

// ganttProjects are the projects with timed phases, in project order.
func ganttProjects(r report.Run, timings map[string][]report.Phase) []ganttProject {
	var out []ganttProject
	for i, p := range r.Projects {
		var phases []report.Phase
		for _, ph := range timings[p.Name] {
			if !ph.Start.IsZero() {
				phases = append(phases, ph)
			}
		}
		if len(phases) == 0 {
			continue
		}
		g := ganttProject{label: projectLabel(p), phases: phases, order: i,
			failed: p.Status == report.StatusFailed || p.Status == report.StatusInterrupted}
		g.first, g.last = phases[0].Start, phases[0].End()
		for _, ph := range phases[1:] {
			g.first, g.last = earlier(g.first, ph.Start), later(g.last, ph.End())
		}
		out = append(out, g)
	}
	return out
}

// mdTimeline is the job summary's timeline: the Gantt chart in a mermaid code block, and
// what it leaves out. "" when no phase has a start time.
func mdTimeline(r report.Run, timings map[string][]report.Phase) string {
	tl := Gantt(r, timings)
	if tl.Source == "" {
		return ""
	}
	var b strings.Builder
	b.WriteString("### Timeline\n\n```mermaid\n" + tl.Source + "```\n\n")
	if tl.Folded > 0 {
		fmt.Fprintf(&b, "The timeline draws the %d slowest of %d projects, and the other %d as one bar.\n\n",
			tl.Drawn, tl.Projects, tl.Folded)
	}
	return b.String()
}
