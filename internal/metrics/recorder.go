package metrics

import (
	"sync"
	"time"

	"github.com/tfgate/tfgate/internal/report"
)

// Progress is what the pipeline reports each project's phases through (pipeline.Progress).
type Progress interface {
	Start(project, phase string)
	Phase(project, phase string)
	Detail(project, detail string)
	Finished(r report.Project)
}

// Recorder is a Progress that times each project's phases and passes every call on to the
// next Progress (the terminal's). A phase lasts from the call that enters it to the call
// that enters the next one, or to the project's result; it keeps when it began (the job
// summary's timeline draws it on a clock). Its clock is injectable, so tests are exact. It is safe for concurrent use: the
// pool reports from one goroutine per project.
type Recorder struct {
	next Progress
	now  func() time.Time

	mu     sync.Mutex
	open   map[string]openPhase // by project: the phase it is in
	phases map[string][]report.Phase
}

type openPhase struct {
	name  string
	since time.Time
}

// NewRecorder records phases on the way to next (nil: none); now is the clock (nil:
// time.Now).
func NewRecorder(next Progress, now func() time.Time) *Recorder {
	if now == nil {
		now = time.Now
	}
	return &Recorder{next: next, now: now, open: map[string]openPhase{}, phases: map[string][]report.Phase{}}
}

// Start records that project began, in phase.
func (r *Recorder) Start(project, phase string) {
	r.enter(project, phase)
	if r.next != nil {
		r.next.Start(project, phase)
	}
}

// Phase records that project moved on to phase.
func (r *Recorder) Phase(project, phase string) {
	r.enter(project, phase)
	if r.next != nil {
		r.next.Phase(project, phase)
	}
}

// Detail passes on how far project is within its phase: progress within a phase is not a
// phase, and is not timed.
func (r *Recorder) Detail(project, detail string) {
	if r.next != nil {
		r.next.Detail(project, detail)
	}
}

// Finished closes the project's last phase.
func (r *Recorder) Finished(p report.Project) {
	r.mu.Lock()
	r.close(p.Name, r.now())
	r.mu.Unlock()
	if r.next != nil {
		r.next.Finished(p)
	}
}

func (r *Recorder) enter(project, phase string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	r.close(project, now)
	r.open[project] = openPhase{name: phase, since: now}
}

// close ends the phase project is in, if any. r.mu is held.
func (r *Recorder) close(project string, now time.Time) {
	ph, ok := r.open[project]
	if !ok {
		return
	}
	delete(r.open, project)
	r.phases[project] = append(r.phases[project], report.Phase{Name: ph.name, Start: ph.since, Duration: now.Sub(ph.since)})
}

// Phases are the phases recorded so far, by project name, in the order entered. A phase
// still open counts until now.
func (r *Recorder) Phases() map[string][]report.Phase {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	out := make(map[string][]report.Phase, len(r.phases)+len(r.open))
	for name, phs := range r.phases {
		out[name] = append([]report.Phase(nil), phs...)
	}
	for name, ph := range r.open {
		out[name] = append(out[name], report.Phase{Name: ph.name, Start: ph.since, Duration: now.Sub(ph.since)})
	}
	return out
}
