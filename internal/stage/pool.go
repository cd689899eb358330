package stage

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/tfgate/tfgate/internal/project"
	"github.com/tfgate/tfgate/internal/report"
)

// Progress receives each project's phases while it runs (render.Progress implements it).
type Progress interface {
	Start(project, phase string)
	Phase(project, phase string)
	// Detail says how far a running project is within its phase ("4,210 resources
	// refreshed"), a few times a second at most; the next Phase clears it. It is not a
	// phase: nothing times it.
	Detail(project, detail string)
	Finished(r report.Project)
}

// step does one project's job (plan it, apply it, check it for drift). It reports its
// phases through phase as it reaches them and returns the project's result; the pool fills
// in the name, dir, workspace and duration.
type step func(ctx context.Context, p project.Project, phase func(string)) report.Project

// PoolOptions shape a run of ForEach.
type PoolOptions struct {
	Limit    int // at most this many projects at once; <= 0 = number of CPUs
	Progress Progress
	// Ordered runs each project after the projects it depends_on (those in the run), and
	// does not start a project when one of those did not succeed: apply must not change a
	// project whose foundation failed.
	Ordered bool
	Now     func() time.Time
}

// DirCount is how many of the projects can run at the same time: those of one directory
// (its workspaces) never do.
func DirCount(projects []project.Project) int {
	dirs := map[string]bool{}
	for _, p := range projects {
		dirs[p.Dir] = true
	}
	return len(dirs)
}

// TerraformProcs is the GOMAXPROCS of each terraform process when ForEach runs n projects
// that may run together (DirCount), at most limit at once: the CPUs shared among those
// running together, at least one; 0 (terraform's own default) when they run one at a time.
func TerraformProcs(limit, n int) int {
	cpus := runtime.GOMAXPROCS(0) // the CPUs this process may use (cgroup limits included)
	if limit <= 0 {
		limit = runtime.NumCPU()
	}
	at := min(limit, n)
	if at <= 1 {
		return 0
	}
	return max(1, cpus/at)
}

// ForEach runs step for every project with bounded parallelism and returns the results in
// project order. Projects sharing a directory (several workspaces) never run at the same
// time: they share its lock file and local state. One project failing does not stop the others.
// When ctx is cancelled, a project still running is reported interrupted (if its step
// failed) and every project that had not started is reported not started.
func ForEach(ctx context.Context, projects []project.Project, opts PoolOptions, run step) []report.Project {
	limit := opts.Limit
	if limit <= 0 {
		limit = runtime.NumCPU()
	}
	if opts.Progress == nil {
		opts.Progress = NopProgress{}
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	slots := make(chan struct{}, limit)
	dirLocks := map[string]*sync.Mutex{}
	done := map[string]chan struct{}{} // by project name: closed when its result is in
	for _, p := range projects {
		if dirLocks[p.Dir] == nil {
			dirLocks[p.Dir] = &sync.Mutex{}
		}
		done[p.Name] = make(chan struct{})
	}
	index := make(map[string]int, len(projects))
	for i, p := range projects {
		index[p.Name] = i
	}
	results := make([]report.Project, len(projects))
	dependency := func(dep string) (report.Project, bool) {
		j, ok := index[dep]
		if !ok || !opts.Ordered {
			return report.Project{}, false
		}
		select {
		case <-done[dep]:
		case <-ctx.Done():
			<-done[dep] // it finishes quickly: cancelled too
		}
		return results[j], true
	}
	var wg sync.WaitGroup
	for i, p := range projects {
		// Without ordering, slots are taken here, in project order, so projects start in
		// the order they are listed. With ordering a project takes its slot once its
		// dependencies are done, so that waiting projects never hold the slots the ones
		// they wait for need.
		held := false
		if !opts.Ordered {
			select {
			case slots <- struct{}{}:
				held = true
			case <-ctx.Done():
			}
		}
		wg.Go(func() {
			defer close(done[p.Name])
			results[i] = runOne(ctx, p, opts, slots, held, dirLocks[p.Dir], dependency, run)
		})
	}
	wg.Wait()
	return results
}

// runOne waits for p's dependencies, its directory and a slot (unless held already: then it
// releases it), then runs it.
func runOne(ctx context.Context, p project.Project, opts PoolOptions, slots chan struct{}, held bool, dirLock *sync.Mutex,
	dependency func(name string) (report.Project, bool), run step) report.Project {
	if held {
		defer func() { <-slots }()
	}
	base := report.Project{Name: p.Name, Dir: p.Dir, Workspace: p.Workspace}
	notStarted := func(why string) report.Project {
		r := base
		r.Status, r.Error = report.StatusNotStarted, why
		return r
	}
	for _, dep := range p.DependsOn {
		if r, ok := dependency(dep); ok && !r.Status.Succeeded() {
			return notStarted(fmt.Sprintf("it depends on %s, which %s", dep, outcome(r.Status)))
		}
	}
	if !held && opts.Ordered {
		select {
		case slots <- struct{}{}:
			defer func() { <-slots }()
		case <-ctx.Done():
			return notStarted("the run was interrupted before it started")
		}
	}
	dirLock.Lock()
	defer dirLock.Unlock()
	if ctx.Err() != nil || (!held && !opts.Ordered) {
		return notStarted("the run was interrupted before it started")
	}

	start := opts.Now()
	started := false
	phase := func(ph string) {
		if !started {
			started = true
			opts.Progress.Start(p.Name, ph)
			return
		}
		opts.Progress.Phase(p.Name, ph)
	}
	r := run(ctx, p, phase)
	r.Name, r.Dir, r.Workspace = p.Name, p.Dir, p.Workspace
	r.Duration = opts.Now().Sub(start)
	if ctx.Err() != nil && r.Status == report.StatusFailed {
		r.Status = report.StatusInterrupted
	}
	opts.Progress.Finished(r)
	return r
}

// outcome says how a dependency ended, for "it depends on x, which failed".
func outcome(s report.Status) string {
	switch s {
	case report.StatusNotStarted:
		return "did not start"
	case report.StatusInterrupted:
		return "was interrupted"
	case report.StatusRefused:
		return "was refused"
	}
	return "failed"
}

// NopProgress is a Progress that reports nothing.
type NopProgress struct{}

func (NopProgress) Start(string, string)    {}
func (NopProgress) Phase(string, string)    {}
func (NopProgress) Detail(string, string)   {}
func (NopProgress) Finished(report.Project) {}

// DetailOf is where the stages of project name report their progress detail.
func DetailOf(p Progress, name string) func(string) {
	if p == nil {
		return func(string) {}
	}
	return func(d string) { p.Detail(name, d) }
}
