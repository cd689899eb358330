package render

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/tfgate/tfgate/internal/policy"
	"github.com/tfgate/tfgate/internal/report"
)

// Progress shows what each project is doing while projects run in parallel (on stderr).
//
// In live mode (a terminal) it keeps a block of one line per running project and redraws it
// as phases change and time passes; finished projects at the top of the block become
// permanent lines. Otherwise it prints one plain line per event, which reads well in CI logs,
// and every 30 seconds a "still planning (1m30s)" line for each project that has printed
// nothing for that long, so that a long plan does not look hung.
//
// A phase's detail (Detail: "4,210 resources refreshed") shows beside it: redrawn with the
// block in live mode; in plain mode a line of its own at most every 10 seconds per project,
// so that a log gets news of a long plan without a line per resource.
// All methods are safe for concurrent use.
type Progress struct {
	mu      sync.Mutex
	w       io.Writer
	live    bool
	pal     palette
	now     func() time.Time
	tick    time.Duration // live redraw interval
	beat    time.Duration // plain mode: silence after which a running project says it still runs
	every   time.Duration // plain mode: at most one detail line per project this often
	check   time.Duration // plain mode: how often to look for such silence
	rows    []*progressRow
	byName  map[string]*progressRow
	nameW   int
	drawn   int // lines of the live block currently on screen
	settled int // rows printed for good (live mode)
	frame   int
	stop    chan struct{}
	stopped chan struct{}
	closed  bool
}

type progressRow struct {
	name, phase, note string
	detail            string // how far the phase is; "" for nothing to say
	saidDetail        string // plain mode: the detail its last line showed
	start             time.Time
	said              time.Time // plain mode: when its last line was printed
	dur               time.Duration
	done, ok          bool
}

const noteWidth = 10

// heartbeat is how long a running project may stay silent in plain mode.
const heartbeat = 30 * time.Second

// detailEvery is how often, at most, plain mode prints a project's detail.
const detailEvery = 10 * time.Second

var spinner = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// NewProgress writes progress to w. live redraws lines in place (w is a terminal); color
// adds ANSI colours.
func NewProgress(w io.Writer, live, color bool) *Progress {
	return &Progress{
		w: w, live: live, pal: palette(color), now: time.Now, tick: 200 * time.Millisecond,
		// Looking a few times per interval keeps a silent project's wait close to it.
		beat: heartbeat, check: heartbeat / 4, every: detailEvery, byName: map[string]*progressRow{},
	}
}

// Start records that a project began, in its first phase ("init", "workspace", "plan",
// "show", "policy"; "queued" while it waits for its turn, shown as "waiting").
func (p *Progress) Start(project, phase string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	r := p.row(project)
	r.phase, r.detail, r.start, r.done = phase, "", p.now(), false
	p.event(r)
	p.startTicker()
}

// Phase records that a project moved on to another phase.
func (p *Progress) Phase(project, phase string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	r := p.row(project)
	if r.start.IsZero() {
		r.start = p.now()
	}
	r.phase, r.detail = phase, ""
	p.event(r)
}

// Detail records how far a project is within its phase ("4,210 resources refreshed"). It
// prints nothing by itself in live mode (the next redraw shows it, a few times a second),
// and in plain mode only when the project has printed nothing for the detail interval.
func (p *Progress) Detail(project, detail string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	r, ok := p.byName[project]
	if !ok || r.done {
		return
	}
	r.detail = detail
	if p.live || detail == "" || detail == r.saidDetail || p.now().Sub(r.said) < p.every {
		return
	}
	p.event(r)
}

// Done records that a project finished after d; note says how ("planned", "no changes",
// "applied"; "failed" when empty and !ok).
func (p *Progress) Done(project string, ok bool, d time.Duration, note string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	r := p.row(project)
	r.done, r.ok, r.dur, r.note = true, ok, d, note
	p.event(r)
}

// Finished records that a project's part of a run ended, saying how in a few words: its
// status ("planned · policies: pass"), or for a failure the headline of its error. A plan
// the policies denied (or could not judge) is marked as failed: it stops the run.
func (p *Progress) Finished(r report.Project) {
	p.Done(r.Name, r.Status.Succeeded() && !policyStops(r.Policy), r.Duration, progressNote(r))
}

// policyStops reports whether a project's policy result stops its plan from going ahead.
func policyStops(r *policy.Result) bool {
	return r != nil && (r.Verdict == policy.VerdictDeny || r.Verdict == policy.VerdictError)
}

func progressNote(r report.Project) string {
	switch {
	case r.Status == report.StatusFailed:
		return headline(r.Error)
	case !r.Status.Succeeded():
		return statusWord(r.Status)
	case r.Policy != nil:
		return statusWord(r.Status) + " · policies: " + policySummary(*r.Policy)
	}
	return statusWord(r.Status)
}

// headline is the one line of an error worth showing in progress: terraform's own
// "Error: …" summary when there is one, else the first line.
func headline(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for _, l := range lines {
		if msg, ok := strings.CutPrefix(strings.TrimSpace(l), "Error: "); ok {
			return msg
		}
	}
	return lines[0]
}

// Close stops the redraws and leaves every line on screen. It is safe to call twice.
func (p *Progress) Close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	stop, stopped := p.stop, p.stopped
	p.mu.Unlock()
	if stop != nil {
		close(stop)
		<-stopped
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.live {
		p.redraw(true)
	}
}

func (p *Progress) row(name string) *progressRow {
	if r, ok := p.byName[name]; ok {
		return r
	}
	r := &progressRow{name: clean(name)}
	p.byName[name] = r
	p.rows = append(p.rows, r)
	p.nameW = max(p.nameW, runes(r.name))
	return r
}

func (p *Progress) event(r *progressRow) {
	if p.live {
		p.redraw(false)
		return
	}
	r.said, r.saidDetail = p.now(), r.detail
	fmt.Fprintln(p.w, p.format(r))
}

// heartbeat prints, in plain mode, a line for each running project that has been silent
// for the heartbeat interval: `  envs/prod/app  still planning (1m30s)`.
func (p *Progress) heartbeat() {
	if p.closed {
		return
	}
	now := p.now()
	for _, r := range p.rows {
		if r.done || r.start.IsZero() || now.Sub(r.said) < p.beat {
			continue
		}
		r.said, r.saidDetail = now, r.detail
		still := "still " + activity(r.phase) + " (" + elapsed(now.Sub(r.start)) + ")"
		if r.detail != "" {
			still += " · " + clean(r.detail)
		}
		fmt.Fprintln(p.w, "  "+pad(r.name, p.nameW)+"  "+p.pal.paint(ansiDim, still))
	}
}

// phaseLabel is how a phase reads in a progress line.
func phaseLabel(phase string) string {
	if phase == "queued" {
		return "waiting"
	}
	return clean(phase)
}

// activity is what a project in a phase is doing, for the heartbeat line.
func activity(phase string) string {
	switch phase {
	case "queued":
		return "waiting"
	case "init":
		return "running init"
	case "workspace":
		return "selecting the workspace"
	case "plan":
		return "planning"
	case "show":
		return "reading the plan"
	case "policy":
		return "checking policies"
	case "apply":
		return "applying"
	}
	return "in " + clean(phase)
}

// format renders one row: `  envs/dev/app  plan…` or `✓ envs/dev/app  planned  2.1s`.
func (p *Progress) format(r *progressRow) string {
	name := pad(r.name, p.nameW)
	if r.done {
		note := clean(r.note)
		switch {
		case note == "" && r.ok:
			note = "done"
		case note == "":
			note = "failed"
		}
		// Notes are short words ("planned", "no changes"); padding aligns the durations.
		gap := strings.Repeat(" ", max(0, noteWidth-runes(note))+2)
		if !r.ok {
			return p.pal.paint(ansiRed, "✗") + " " + name + "  " + p.pal.paint(ansiRed, note) + gap + duration(r.dur)
		}
		return p.pal.paint(ansiGreen, "✓") + " " + name + "  " + note + gap + duration(r.dur)
	}
	doing := phaseLabel(r.phase)
	if r.detail != "" {
		doing += " · " + clean(r.detail)
	}
	if !p.live {
		return "  " + name + "  " + doing + "…"
	}
	return p.pal.paint(ansiCyan, spinner[p.frame%len(spinner)]) + " " + name + "  " +
		p.pal.paint(ansiDim, doing+"…") + "  " + fmt.Sprintf("%ds", int(p.now().Sub(r.start).Seconds()))
}

// redraw rewrites the live block: cursor up over the old block, then each line cleared and
// printed again. Finished rows at the top leave the block for good.
func (p *Progress) redraw(final bool) {
	var b strings.Builder
	if p.drawn > 0 {
		fmt.Fprintf(&b, "\x1b[%dA", p.drawn)
	}
	lines, settled := 0, p.settled
	for i := p.settled; i < len(p.rows); i++ {
		r := p.rows[i]
		b.WriteString("\r\x1b[2K")
		b.WriteString(p.format(r))
		b.WriteByte('\n')
		lines++
		if settled == i && (r.done || final) {
			settled++
		}
	}
	if lines == 0 && p.drawn == 0 {
		return
	}
	io.WriteString(p.w, b.String())
	p.drawn = lines - (settled - p.settled)
	p.settled = settled
}

// startTicker starts the redraws (live mode) or the heartbeat checks (plain mode), which run
// until Close.
func (p *Progress) startTicker() {
	if p.stop != nil {
		return
	}
	interval := p.tick
	if !p.live {
		interval = p.check
	}
	p.stop, p.stopped = make(chan struct{}), make(chan struct{})
	go func(stop, stopped chan struct{}) {
		defer close(stopped)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				p.mu.Lock()
				if p.live {
					p.frame++
					p.redraw(false)
				} else {
					p.heartbeat()
				}
				p.mu.Unlock()
			}
		}
	}(p.stop, p.stopped)
}

// elapsed formats a running time in whole seconds: "45s", "1m30s".
func elapsed(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%ds", int(d.Seconds()))
	}
	return duration(d)
}

// duration formats like "2.1s", "45.0s", "1m05s".
func duration(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	d = d.Round(time.Second)
	return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
}
