package render

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	goldenfile "github.com/tfgate/tfgate/internal/golden"
	"github.com/tfgate/tfgate/internal/report"
)

// mermaidGolden compares src, Mermaid source alone, with testdata/<TestName>.mmd: every
// .mmd golden is one diagram, which make test hands to mermaid.parse.
func mermaidGolden(t *testing.T, src string) {
	t.Helper()
	path := strings.TrimSuffix(goldenfile.Path(t.Name()), ".golden") + ".mmd"
	goldenfile.Check(t, path, []byte(src))
}

var (
	// ganttStart is the chart's start: only the left padding and the axis's precision vary.
	ganttStart     = regexp.MustCompile(`^%%\{init: \{"gantt": \{"leftPadding": [0-9]+\}\}\}%%\ngantt\n    dateFormat x\n    axisFormat %H:%M:%S(\.%L)?\n    todayMarker off\n`)
	ganttSectionRe = regexp.MustCompile(`^    section (.+)$`)
	ganttTaskRe    = regexp.MustCompile(`^    (.+) :((?:crit|done), )?([0-9]+), ([0-9]+)$`)
)

// ganttProblem reads src the way Mermaid's gantt lexer and GitHub's markdown would where it
// matters, and says what is wrong: a line that is not the header, a section or a task; a
// name holding what ends or redirects it (':', '#', ';', '%', a backtick, a carriage
// return, HTML's '<' '>' '&' '"', braces); a task name that starts like a statement or a
// date; a bar that ends before it starts. "" when nothing is.
func ganttProblem(src string) string {
	header := ganttStart.FindString(src)
	if header == "" || !strings.HasSuffix(src, "\n") {
		return "not a gantt chart with tfgate's header"
	}
	for _, l := range strings.Split(strings.TrimSuffix(strings.TrimPrefix(src, header), "\n"), "\n") {
		var name string
		if m := ganttSectionRe.FindStringSubmatch(l); m != nil {
			name = m[1]
		} else if m := ganttTaskRe.FindStringSubmatch(l); m != nil {
			name = m[1]
			start, _ := strconv.ParseInt(m[3], 10, 64)
			end, _ := strconv.ParseInt(m[4], 10, 64)
			if end < start {
				return "a bar ending before it starts: " + l
			}
			lower := strings.ToLower(name)
			for _, k := range ganttKeywords {
				if strings.HasPrefix(lower, k) {
					return "a task name the lexer reads as a statement: " + l
				}
			}
			if name[0] >= '0' && name[0] <= '9' || name[0] == ' ' {
				return "a task name starting with a digit or a space: " + l
			}
		} else {
			return "neither a section nor a task: " + l
		}
		if strings.TrimSpace(name) == "" || !utf8.ValidString(name) {
			return "an empty or invalid name: " + l
		}
		if i := strings.IndexAny(name, ":#;%`\r\t<>&\"{}\\'\u2028\u2029\u0085"); i >= 0 {
			return fmt.Sprintf("%q in a name: %s", name[i], l)
		}
		if utf8.RuneCountInString(name) > ganttNameRunes+1 { // "_" in front of a task
			return "a name longer than ganttNameRunes: " + l
		}
	}
	return ""
}

func checkGantt(t testing.TB, src string) {
	t.Helper()
	if p := ganttProblem(src); p != "" {
		t.Fatalf("%s in:\n%s", p, src)
	}
}

// manyProjects are n projects started 100 ms apart; project i takes (i%7+1) seconds, the
// last of its three phases failing when i%11 == 5.
func manyProjects(n int) (report.Run, map[string][]report.Phase) {
	r := report.Run{Kind: report.KindPlan}
	timings := map[string][]report.Phase{}
	for i := range n {
		name := fmt.Sprintf("envs/team-%02d/app", i)
		st := report.StatusPlanned
		if i%11 == 5 {
			st = report.StatusFailed
		}
		r.Projects = append(r.Projects, report.Project{Name: name, Dir: name, Status: st})
		at := runStart.Add(time.Duration(i) * 100 * time.Millisecond)
		total := time.Duration(i%7+1) * time.Second
		for j, ph := range []string{"init", "plan", "show"} {
			d := total / 3
			timings[name] = append(timings[name], report.Phase{Name: ph, Start: at.Add(time.Duration(j) * d), Duration: d})
		}
	}
	return r, timings
}

// TestGantt: the timeline's Mermaid source (goldens ending in .mmd, each one diagram), and
// the job summary's block around it.
func TestGantt(t *testing.T) {
	plan := map[string][]report.Phase{
		"envs/dev/app":      phases("init", 900, "workspace", 100, "plan", 800, "show", 250),
		"envs/prod/app":     phases("queued", 300, "init", 700, "workspace", 100, "plan", 1000, "show", 200),
		"envs/prod/network": phases("init", 500, "workspace", 100, "plan", 150),
		"envs/staging/db":   phases("init", 600, "workspace", 100, "plan", 500, "show", 100, "policy", 150),
	}
	many, manyTimings := manyProjects(57)
	hostile, hostileTimings := ganttHostileRun()
	tests := []struct {
		name    string
		r       report.Run
		timings map[string][]report.Phase
		drawn   int
		folded  int
	}{
		{"small", testReport(t), plan, 4, 0},
		{"many", many, manyTimings, ganttMaxProjects, 57 - ganttMaxProjects},
		{"hostile", hostile, hostileTimings, len(hostile.Projects), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl := Gantt(tt.r, tt.timings)
			checkGantt(t, tl.Source)
			mermaidGolden(t, tl.Source)
			if tl.Drawn != tt.drawn || tl.Folded != tt.folded || tl.Projects != tt.drawn+tt.folded {
				t.Errorf("drawn %d, folded %d of %d; want %d, %d", tl.Drawn, tl.Folded, tl.Projects, tt.drawn, tt.folded)
			}
			if n := strings.Count(tl.Source, "\n    section "); n != tt.drawn+min(tt.folded, 1) {
				t.Errorf("%d sections", n)
			}
			md := mdTimeline(tt.r, tt.timings)
			checkMarkdown(t, md)
			golden(t, []byte(md))
		})
	}
}

// TestGanttFolds: a large run draws its slowest projects, in project order, and one bar
// from the first start to the last end of the others; the summary says so.
func TestGanttFolds(t *testing.T) {
	r, timings := manyProjects(57)
	tl := Gantt(r, timings)
	// Projects take i%7+1 seconds: the 6- and 7-second ones (i%7 == 5, 6) are the slowest
	// 16, then the first four of the 5-second ones (i%7 == 4: 4, 11, 18, 25).
	var want []string
	for i := range 57 {
		if i%7 >= 5 || i%7 == 4 && i <= 25 {
			want = append(want, fmt.Sprintf("envs/team-%02d/app", i))
		}
	}
	var got []string
	for _, m := range regexp.MustCompile(`(?m)^    section (envs/.*)$`).FindAllStringSubmatch(tl.Source, -1) {
		got = append(got, m[1])
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("drawn %q\nwant  %q", got, want)
	}
	// The others: project 0 starts first; project 53 (5 s from 5.3 s, in thirds) ends last.
	first, last := runStart.UnixMilli(), runStart.Add(5300*time.Millisecond+3*(5*time.Second/3)).UnixMilli()
	wantBar := fmt.Sprintf("    section 37 other projects\n    all phases :done, %d, %d\n", first, last)
	if !strings.HasSuffix(tl.Source, wantBar) {
		t.Errorf("the folded bar is not\n%s in\n%s", wantBar, tl.Source)
	}
	md := mdTimeline(r, timings)
	if !strings.Contains(md, "draws the 20 slowest of 57 projects, and the other 37 as one bar.") {
		t.Errorf("the summary does not say what it folded:\n%s", md)
	}
	if len(tl.Source) > 8<<10 {
		t.Errorf("%d bytes of Mermaid for %d projects", len(tl.Source), ganttMaxProjects)
	}
}

// ganttHostileRun's project names and phase names try to break out of a Gantt line, the chart,
// the code block and the markdown around it.
func ganttHostileRun() (report.Run, map[string][]report.Phase) {
	names := []string{
		"a: b; c # d", "x\nsection injected", "%%{init: {\"theme\": \"dark\"}}%%", "click task1 href \"javascript:alert(1)\"",
		"```\n<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "#35; &lt; &#60;", "dateFormat YYYY",
		"\r\n::error::y", "@team #123", "\u202eevil\u200b", "2026-01-02 plan", "   ", strings.Repeat("very/long/path/", 20) + "end",
	}
	r := report.Run{Kind: report.KindPlan}
	timings := map[string][]report.Phase{}
	for i, n := range names {
		r.Projects = append(r.Projects, report.Project{Name: n, Dir: fmt.Sprint("p", i), Status: report.StatusPlanned})
		// The phase names are tfgate's own, but the escaping does not count on it.
		timings[n] = phases("init", 100, names[(i+1)%len(names)], 200, "click", 50, "call foo()", 50)
	}
	return r, timings
}

func TestGanttTextEscapes(t *testing.T) {
	tests := []struct{ in, want string }{
		{"envs/prod/app (workspace prod)", "envs/prod/app (workspace prod)"},
		{"a: b; c # d %% e", "a： b； c ＃ d ％％ e"},
		{"<b>&\"x\"</b>", "＜b＞＆＂x＂＜/b＞"},
		{"```x`", "｀｀｀x｀"},
		{"line\r\nbreak\u2028here\ttab", "line break here tab"},
		{"\u202ebidi\u200bzero", "bidizero"},
		{"{x}\\y", "｛x｝＼y"},
		{"", "_"},
		{" \n ", "_"},
		{strings.Repeat("ab/", 30), "…b/" + strings.Repeat("ab/", 15)},
	}
	for _, tt := range tests {
		if got := ganttText(tt.in); got != tt.want {
			t.Errorf("ganttText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	for _, in := range []string{"click x", "Call f()", "gantt", "title t", "section s", "2026-01-02", "9 lives", "accTitle"} {
		if got := ganttTask(in); !strings.HasPrefix(got, "_") {
			t.Errorf("ganttTask(%q) = %q: read as a statement", in, got)
		}
	}
	if got := ganttTask("plan"); got != "plan" {
		t.Errorf("ganttTask(plan) = %q", got)
	}
}

// TestGanttWithoutStarts: phases without a start time (recorded before they had one) are
// left out, and without any there is no timeline.
func TestGanttWithoutStarts(t *testing.T) {
	r := testReport(t)
	timings := map[string][]report.Phase{"envs/dev/app": {{Name: "init", Duration: time.Second}}}
	if tl := Gantt(r, timings); tl.Source != "" || tl.Projects != 0 {
		t.Errorf("a timeline without start times: %+v", tl)
	}
	if mdTimeline(r, timings) != "" || mdTimeline(r, nil) != "" || mdTimeline(report.Run{}, timings) != "" {
		t.Error("a timeline block without start times")
	}
}

func FuzzGantt(f *testing.F) {
	r, _ := ganttHostileRun()
	for _, p := range r.Projects {
		f.Add(p.Name, "init", int64(100))
	}
	f.Add("ok", "\x00\xff", int64(-5))
	f.Fuzz(func(t *testing.T, project, phase string, msec int64) {
		r := report.Run{Projects: []report.Project{{Name: project, Status: report.StatusFailed}, {Name: "next", Status: report.StatusPlanned}}}
		d := time.Duration(msec%1e7) * time.Millisecond
		if d < 0 {
			d = -d
		}
		timings := map[string][]report.Phase{
			project: {{Name: phase, Start: runStart, Duration: d}, {Name: project, Start: runStart.Add(d), Duration: d}},
			"next":  {{Name: "queued", Start: runStart, Duration: d}},
		}
		tl := Gantt(r, timings)
		checkGantt(t, tl.Source)
		checkMarkdown(t, mdTimeline(r, timings))
	})
}

// TestGanttWorstCase: the longest names and the most phases stay within a bounded chart —
// ganttMaxProjects sections of at most ganttMaxPhases bars, the last of them "N more
// phases" up to the project's last end — far inside the job summary's limit.
func TestGanttWorstCase(t *testing.T) {
	r := report.Run{Kind: report.KindPlan}
	timings := map[string][]report.Phase{}
	for i := range 300 {
		name := fmt.Sprintf("%s/%03d", strings.Repeat("a-very-long-directory-name/", 10), i)
		r.Projects = append(r.Projects, report.Project{Name: name, Status: report.StatusFailed})
		var kv []any
		for j := range 40 {
			kv = append(kv, fmt.Sprintf("%s-phase-%d", strings.Repeat("x", 100), j), 10+i)
		}
		timings[name] = phases(kv...)
	}
	tl := Gantt(r, timings)
	checkGantt(t, tl.Source)
	if n := strings.Count(tl.Source, "\n"); n != 5+ganttMaxProjects*(1+ganttMaxPhases)+2 {
		t.Errorf("%d lines", n)
	}
	last := runStart.Add(40 * time.Duration(10+299) * time.Millisecond).UnixMilli()
	if want := fmt.Sprintf("    … 29 more phases :crit, %d, %d\n    section 280 other projects\n",
		runStart.Add(11*time.Duration(10+299)*time.Millisecond).UnixMilli(), last); !strings.Contains(tl.Source, want) {
		t.Errorf("the slowest project's last bar is not\n%s", want)
	}
	if len(tl.Source) > 24<<10 || len(mdTimeline(r, timings)) > 24<<10 {
		t.Errorf("%d bytes of Mermaid", len(tl.Source))
	}
}
