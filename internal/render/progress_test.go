package render

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tfgate/tfgate/internal/policy"
	"github.com/tfgate/tfgate/internal/report"
)

// fakeClock advances only when told.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func newTestProgress(buf *bytes.Buffer, live, color bool) (*Progress, *fakeClock) {
	clock := &fakeClock{t: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)}
	p := NewProgress(buf, live, color)
	p.now = clock.now
	p.tick, p.check = time.Hour, time.Hour // tests redraw and beat on demand, deterministically
	return p, clock
}

// script drives a progress display through a typical parallel run.
func script(p *Progress, clock *fakeClock) {
	p.Start("envs/dev/app", "init")
	p.Start("envs/prod/network", "init")
	clock.advance(800 * time.Millisecond)
	p.Phase("envs/dev/app", "plan")
	p.Done("envs/prod/network", false, 800*time.Millisecond, "")
	p.Start("envs/prod/\x1b[31mapp", "init")
	clock.advance(1300 * time.Millisecond)
	p.Phase("envs/dev/app", "show")
	p.Done("envs/dev/app", true, 2100*time.Millisecond, "planned")
	p.Phase("envs/prod/\x1b[31mapp", "plan")
	clock.advance(63 * time.Second)
	p.Done("envs/prod/\x1b[31mapp", true, 65*time.Second, "no changes")
	p.Close()
}

func TestProgressPlain(t *testing.T) {
	for _, color := range []bool{false, true} {
		t.Run(map[bool]string{false: "plain", true: "color"}[color], func(t *testing.T) {
			var buf bytes.Buffer
			p, clock := newTestProgress(&buf, false, color)
			script(p, clock)
			golden(t, buf.Bytes())
		})
	}
}

func TestProgressLive(t *testing.T) {
	var buf bytes.Buffer
	p, clock := newTestProgress(&buf, true, false)
	script(p, clock)
	golden(t, []byte(strconv.Quote(buf.String())+"\n"))
	want := []string{
		"✓ envs/dev/app           planned     2.1s",
		"✗ envs/prod/network      failed      0.8s",
		`✓ envs/prod/\x1b[31mapp  no changes  1m05s`,
	}
	if got := screen(buf.String()); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("final screen:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// The order of finishing differs from the order of starting: unfinished rows stay in the
// live block, finished rows above them leave it for good.
func TestProgressLiveBlock(t *testing.T) {
	var buf bytes.Buffer
	p, clock := newTestProgress(&buf, true, false)
	p.Start("a", "init")
	p.Start("b", "init")
	clock.advance(3 * time.Second)
	p.Done("b", true, 3*time.Second, "planned")
	wantMid := []string{"⠋ a  init…  3s", "✓ b  planned     3.0s"}
	if got := screen(buf.String()); strings.Join(got, "\n") != strings.Join(wantMid, "\n") {
		t.Errorf("screen while a runs:\n%s", strings.Join(got, "\n"))
	}
	p.Done("a", true, 4*time.Second, "planned")
	p.Close()
	want := []string{"✓ a  planned     4.0s", "✓ b  planned     3.0s"}
	if got := screen(buf.String()); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("final screen:\n%s", strings.Join(got, "\n"))
	}
}

func TestProgressConcurrent(t *testing.T) {
	var buf bytes.Buffer
	p := NewProgress(&lockedWriter{w: &buf}, true, true)
	p.tick = time.Millisecond
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			name := fmt.Sprintf("p%d", i)
			p.Start(name, "init")
			for _, phase := range []string{"workspace", "plan", "show", "policy"} {
				time.Sleep(time.Millisecond)
				p.Phase(name, phase)
			}
			p.Done(name, i%3 != 0, time.Duration(i)*time.Second, "")
		})
	}
	wg.Wait()
	p.Close()
	p.Close()
	p.Start("late", "init") // after Close: ignored
	lines := screen(regexp.MustCompile("\x1b\\[[0-9;]*m").ReplaceAllString(buf.String(), ""))
	if len(lines) != 8 {
		t.Fatalf("final screen has %d lines:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "✓ ") && !strings.HasPrefix(l, "✗ ") {
			t.Errorf("unfinished line on final screen: %q", l)
		}
	}
}

func TestDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "0.0s", 2149 * time.Millisecond: "2.1s", 59900 * time.Millisecond: "59.9s",
		65 * time.Second: "1m05s", 3725 * time.Second: "62m05s",
	} {
		if got := duration(d); got != want {
			t.Errorf("duration(%v) = %q, want %q", d, got, want)
		}
	}
}

type lockedWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

func (l *lockedWriter) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.String()
}

// screen replays what a terminal shows for output using \r, \n, ESC[nA (cursor up) and
// ESC[2K (clear line).
func screen(out string) []string {
	var lines []string
	row := 0
	set := func(s string) {
		for len(lines) <= row {
			lines = append(lines, "")
		}
		lines[row] = s
	}
	cur := ""
	for i := 0; i < len(out); {
		switch {
		case strings.HasPrefix(out[i:], "\x1b[2K"):
			cur = ""
			i += 4
		case strings.HasPrefix(out[i:], "\x1b["):
			j := i + 2
			for j < len(out) && out[j] >= '0' && out[j] <= '9' {
				j++
			}
			n, _ := strconv.Atoi(out[i+2 : j])
			if j < len(out) && out[j] == 'A' {
				row -= n
				cur = ""
				if row < len(lines) {
					cur = lines[row]
				}
			}
			i = j + 1
		case out[i] == '\r':
			cur = ""
			i++
		case out[i] == '\n':
			set(cur)
			row++
			cur = ""
			if row < len(lines) {
				cur = lines[row]
			}
			i++
		default:
			cur += out[i : i+1]
			i++
		}
	}
	return lines
}

// In plain mode (CI logs) a project that stays in one phase for long says every 30 seconds
// that it still runs; "queued" reads as waiting.
func TestProgressHeartbeat(t *testing.T) {
	var buf bytes.Buffer
	p, clock := newTestProgress(&buf, false, false)
	p.Start("envs/dev/app", "init")
	p.Start("envs/prod/app", "queued")
	clock.advance(20 * time.Second)
	p.Phase("envs/prod/app", "init")
	p.heartbeat() // nobody silent for 30s yet
	clock.advance(10 * time.Second)
	p.heartbeat() // dev: 30s silent; prod spoke 10s ago
	p.Phase("envs/dev/app", "plan")
	clock.advance(30 * time.Second)
	p.heartbeat()
	p.heartbeat() // just said it: no repeat
	clock.advance(30 * time.Second)
	p.Done("envs/prod/app", true, 90*time.Second, "planned")
	p.heartbeat()
	clock.advance(9 * time.Minute)
	p.heartbeat()
	p.Done("envs/dev/app", true, 10*time.Minute+30*time.Second, "no changes")
	p.Close()
	p.heartbeat() // after Close: nothing
	golden(t, buf.Bytes())
}

// The heartbeat runs by itself in plain mode, and never in live mode.
func TestProgressHeartbeatTicker(t *testing.T) {
	for _, live := range []bool{false, true} {
		var buf lockedWriter
		buf.w = &bytes.Buffer{}
		p := NewProgress(&buf, live, false)
		p.beat, p.check, p.tick = 5*time.Millisecond, time.Millisecond, time.Millisecond
		p.Start("envs/prod/app", "plan")
		deadline := time.Now().Add(time.Minute)
		for !live && time.Now().Before(deadline) && !strings.Contains(buf.String(), "still planning") {
			time.Sleep(time.Millisecond)
		}
		if live {
			time.Sleep(30 * time.Millisecond)
		}
		p.Done("envs/prod/app", true, time.Second, "planned")
		p.Close()
		if got := strings.Contains(buf.String(), "still planning"); got == live {
			t.Errorf("live=%v: heartbeat printed = %v:\n%s", live, got, buf.String())
		}
	}
}

func TestHeadline(t *testing.T) {
	tests := []struct{ in, want string }{
		{"terraform plan in x: exit status 1\n\nError: No value for required variable\n\n  on main.tf line 1:", "No value for required variable"},
		{"read plan of x: not a plan\nmore", "read plan of x: not a plan"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := headline(tt.in); got != tt.want {
			t.Errorf("headline(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// A denied plan is no success: the line has the failure's mark, never a green ✓.
func TestProgressFinishedDenied(t *testing.T) {
	for verdict, want := range map[policy.Verdict]string{
		policy.VerdictPass:  "✓ app  planned · policies: pass",
		policy.VerdictDeny:  "✗ app  planned · policies: DENIED",
		policy.VerdictError: "✗ app  planned · policies: ERROR",
	} {
		var buf bytes.Buffer
		p, _ := newTestProgress(&buf, false, false)
		p.Start("app", "plan")
		p.Finished(report.Project{Name: "app", Status: report.StatusPlanned, Policy: &policy.Result{Verdict: verdict}})
		p.Close()
		if !strings.Contains(buf.String(), want) {
			t.Errorf("verdict %v: progress\n%s\nwant a line %q", verdict, buf.String(), want)
		}
	}
}

func TestProgressNote(t *testing.T) {
	tests := []struct {
		p    report.Project
		want string
	}{
		{report.Project{Status: report.StatusPlanned}, "planned"},
		{report.Project{Status: report.StatusPlanned, Policy: &policy.Result{Verdict: policy.VerdictDeny}}, "planned · policies: DENIED"},
		{report.Project{Status: report.StatusFailed, Error: "x\nError: boom"}, "boom"},
		{report.Project{Status: report.StatusNotStarted, Error: "dependency a failed"}, "not started"},
		{report.Project{Status: report.StatusInterrupted}, "interrupted"},
	}
	for _, tt := range tests {
		if got := progressNote(tt.p); got != tt.want {
			t.Errorf("progressNote(%s) = %q, want %q", tt.p.Status, got, tt.want)
		}
	}
}

// In plain mode a phase's detail gets a line of its own at most every 10 seconds per
// project, never the same twice, and rides along on the heartbeat; a new phase clears it.
func TestProgressDetailPlain(t *testing.T) {
	var buf bytes.Buffer
	p, clock := newTestProgress(&buf, false, false)
	p.Detail("envs/prod/app", "before it started") // unknown project: nothing
	p.Start("envs/prod/app", "plan")
	p.Start("envs/dev/app", "plan")
	for i := 1; i <= 480; i++ { // two minutes of counts, four a second
		clock.advance(250 * time.Millisecond)
		p.Detail("envs/prod/app", fmt.Sprintf("%d resources refreshed", i*25))
		if i == 60 {
			p.Detail("envs/dev/app", "3 resources refreshed")
		}
	}
	p.Detail("envs/prod/app", "12,000 resources refreshed") // the same as last: no line
	clock.advance(25 * time.Second)
	p.heartbeat() // dev: silent for 30s, says its detail; prod said its own 10s ago or less
	p.Phase("envs/prod/app", "show")
	clock.advance(31 * time.Second)
	p.heartbeat() // prod's detail went with the plan phase
	p.Done("envs/prod/app", true, 3*time.Minute, "planned")
	p.Detail("envs/prod/app", "after it finished") // nothing
	p.Done("envs/dev/app", true, 3*time.Minute, "no changes")
	p.Close()
	golden(t, buf.Bytes())
	if n := strings.Count(buf.String(), "envs/prod/app  plan · "); n < 10 || n > 13 {
		t.Errorf("%d detail lines for two minutes of counts, want about 12:\n%s", n, buf.String())
	}
}

// In live mode the detail shows on the project's line at the next redraw.
func TestProgressDetailLive(t *testing.T) {
	var buf bytes.Buffer
	p, clock := newTestProgress(&buf, true, false)
	p.Start("a", "plan")
	clock.advance(2 * time.Second)
	p.Detail("a", "4,210 resources refreshed")
	if strings.Contains(buf.String(), "4,210") {
		t.Error("a detail redrew the block at once; the ticker redraws it")
	}
	p.redraw(false)
	if got := screen(buf.String()); strings.Join(got, "\n") != "⠋ a  plan · 4,210 resources refreshed…  2s" {
		t.Errorf("screen:\n%s", strings.Join(got, "\n"))
	}
	p.Phase("a", "show")
	if got := screen(buf.String()); strings.Join(got, "\n") != "⠋ a  show…  2s" {
		t.Errorf("after the phase changed:\n%s", strings.Join(got, "\n"))
	}
	p.Detail("a", "\x1b[31mred")
	p.redraw(false)
	if got := screen(buf.String()); strings.Join(got, "\n") != `⠋ a  show · \x1b[31mred…  2s` {
		t.Errorf("a detail is shown escaped:\n%s", strings.Join(got, "\n"))
	}
	p.Done("a", true, 3*time.Second, "planned")
	p.Close()
}
