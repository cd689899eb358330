package metrics

import (
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/tfgate/tfgate/internal/report"
)

// clock moves on only when told.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// calls records what reaches the next Progress.
type calls struct {
	mu  sync.Mutex
	log []string
}

func (c *calls) add(s string)              { c.mu.Lock(); c.log = append(c.log, s); c.mu.Unlock() }
func (c *calls) Start(p, ph string)        { c.add("start " + p + " " + ph) }
func (c *calls) Phase(p, ph string)        { c.add("phase " + p + " " + ph) }
func (c *calls) Detail(p, d string)        { c.add("detail " + p + " " + d) }
func (c *calls) Finished(r report.Project) { c.add("finished " + r.Name) }

// at is the test clock's start plus msec milliseconds.
func at(msec int) time.Time { return time.Unix(0, 0).Add(time.Duration(msec) * time.Millisecond) }

// TestRecorder: each phase from the call that enters it to the next one, with when it began
// (on the injected clock).
func TestRecorder(t *testing.T) {
	c := &clock{t: time.Unix(0, 0)}
	next := &calls{}
	r := NewRecorder(next, c.now)
	r.Start("a", "queued")
	c.advance(100 * time.Millisecond)
	r.Phase("a", "init")
	r.Start("b", "init")
	c.advance(time.Second)
	r.Phase("a", "plan")
	c.advance(time.Second)
	r.Detail("a", "4,210 resources refreshed") // progress within the phase: passed on, not a phase
	c.advance(time.Second)
	r.Finished(report.Project{Name: "a", Status: report.StatusPlanned})
	c.advance(500 * time.Millisecond)

	got := r.Phases()
	want := map[string][]report.Phase{
		"a": {report.Phase{Name: "queued", Start: at(0), Duration: 100 * time.Millisecond}, report.Phase{Name: "init", Start: at(100), Duration: time.Second},
			report.Phase{Name: "plan", Start: at(1100), Duration: 2 * time.Second}},
		"b": {report.Phase{Name: "init", Start: at(100), Duration: 3500 * time.Millisecond}}, // still running: counted until now
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("phases %v, want %v", got, want)
	}
	wantCalls := []string{"start a queued", "phase a init", "start b init", "phase a plan", "detail a 4,210 resources refreshed", "finished a"}
	if !reflect.DeepEqual(next.log, wantCalls) {
		t.Errorf("passed on %q, want %q", next.log, wantCalls)
	}
	// A project that finishes without a phase (refused before apply) has none.
	r.Finished(report.Project{Name: "refused", Status: report.StatusRefused})
	if _, ok := r.Phases()["refused"]; ok {
		t.Error("a project without phases has some")
	}
}

func TestRecorderConcurrent(t *testing.T) {
	r := NewRecorder(nil, nil)
	var wg sync.WaitGroup
	for i := range 20 {
		name := fmt.Sprint("p", i)
		wg.Go(func() {
			r.Start(name, "init")
			for _, ph := range []string{"workspace", "plan", "show"} {
				r.Phase(name, ph)
				_ = r.Phases()
			}
			r.Finished(report.Project{Name: name})
		})
	}
	wg.Wait()
	got := r.Phases()
	if len(got) != 20 {
		t.Fatalf("%d projects", len(got))
	}
	for name, phs := range got {
		if len(phs) != 4 {
			t.Errorf("%s: %v", name, phs)
		}
	}
}
