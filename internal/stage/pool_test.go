package stage

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tfgate/tfgate/internal/project"
	"github.com/tfgate/tfgate/internal/report"
)

func projectsNamed(names ...string) []project.Project {
	ps := make([]project.Project, len(names))
	for i, n := range names {
		ps[i] = project.Project{Name: n, Dir: n, Workspace: "default"}
	}
	return ps
}

func planned() report.Project { return report.Project{Status: report.StatusPlanned} }

func statuses(rs []report.Project) string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Name+":"+string(r.Status))
	}
	return strings.Join(out, " ")
}

func TestForEachKeepsProjectOrder(t *testing.T) {
	ps := projectsNamed("a", "b", "c", "d")
	// Later projects finish first.
	got := ForEach(context.Background(), ps, PoolOptions{Limit: 4}, func(_ context.Context, p project.Project, _ func(string)) report.Project {
		time.Sleep(time.Duration(4-strings.Index("abcd", p.Name)) * 10 * time.Millisecond)
		return planned()
	})
	if want := "a:planned b:planned c:planned d:planned"; statuses(got) != want {
		t.Fatalf("results = %s, want %s", statuses(got), want)
	}
	for _, r := range got {
		if r.Dir != r.Name || r.Workspace != "default" {
			t.Errorf("the pool fills in dir and workspace: %+v", r)
		}
	}
}

func TestForEachBoundsParallelism(t *testing.T) {
	for _, limit := range []int{1, 2, 3} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			// The first `limit` projects wait for each other: a pool that ran fewer at once
			// would never fill the barrier, and the test fails on its timeout rather than
			// hoping a busy machine happens to overlap them.
			var running, peak atomic.Int32
			full := make(chan struct{})
			var once sync.Once
			ps := projectsNamed("a", "b", "c", "d", "e", "f", "g", "h")
			ForEach(context.Background(), ps, PoolOptions{Limit: limit}, func(context.Context, project.Project, func(string)) report.Project {
				n := running.Add(1)
				defer running.Add(-1)
				for {
					old := peak.Load()
					if n <= old || peak.CompareAndSwap(old, n) {
						break
					}
				}
				if n == int32(limit) {
					once.Do(func() { close(full) })
				}
				select {
				case <-full:
				case <-time.After(10 * time.Second):
					t.Errorf("%d projects ran at once after 10s, want %d", running.Load(), limit)
				}
				return planned()
			})
			if p := peak.Load(); p != int32(limit) {
				t.Fatalf("at most %d projects ran at once, want exactly the limit %d", p, limit)
			}
		})
	}
}

func TestForEachSerialisesADirectory(t *testing.T) {
	ps := []project.Project{{Name: "a", Dir: "x", Workspace: "default"}, {Name: "a@stage", Dir: "x", Workspace: "stage"}, {Name: "b", Dir: "y"}}
	var inX atomic.Int32
	var overlap atomic.Bool
	ForEach(context.Background(), ps, PoolOptions{Limit: 3}, func(_ context.Context, p project.Project, _ func(string)) report.Project {
		if p.Dir == "x" {
			if inX.Add(1) > 1 {
				overlap.Store(true)
			}
			time.Sleep(20 * time.Millisecond)
			inX.Add(-1)
		}
		return planned()
	})
	if overlap.Load() {
		t.Fatal("two workspaces of one directory ran at the same time")
	}
}

func TestForEachFailureDoesNotStopOthers(t *testing.T) {
	got := ForEach(context.Background(), projectsNamed("a", "b", "c"), PoolOptions{Limit: 1}, func(_ context.Context, p project.Project, _ func(string)) report.Project {
		if p.Name == "a" {
			return report.Project{Status: report.StatusFailed, Error: "boom"}
		}
		return planned()
	})
	if want := "a:failed b:planned c:planned"; statuses(got) != want {
		t.Fatalf("results = %s, want %s", statuses(got), want)
	}
}

func TestForEachCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	progress := &recordingProgress{}
	got := ForEach(ctx, projectsNamed("a", "b", "c"), PoolOptions{Limit: 1, Progress: progress}, func(ctx context.Context, p project.Project, phase func(string)) report.Project {
		phase("plan")
		cancel()     // Ctrl-C while the first project plans
		<-ctx.Done() // terraform stops when interrupted and fails
		return report.Project{Status: report.StatusFailed, Error: "terraform plan: interrupted"}
	})
	if want := "a:interrupted b:not_started c:not_started"; statuses(got) != want {
		t.Fatalf("results = %s, want %s", statuses(got), want)
	}
	if got[0].Error != "terraform plan: interrupted" || !strings.Contains(got[1].Error, "interrupted before it started") {
		t.Errorf("errors: %q, %q", got[0].Error, got[1].Error)
	}
	if len(progress.done) != 1 {
		t.Errorf("progress must only show projects that started: %v", progress.done)
	}
}

func TestForEachCancelledBeforeStart(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ran := false
	got := ForEach(ctx, projectsNamed("a", "b"), PoolOptions{Limit: 2}, func(context.Context, project.Project, func(string)) report.Project {
		ran = true
		return planned()
	})
	if ran || statuses(got) != "a:not_started b:not_started" {
		t.Fatalf("ran %v, results %s", ran, statuses(got))
	}
}

func TestForEachDependsOnOrder(t *testing.T) {
	// core ← network ← app; app2 depends on core; lone depends on nothing.
	ps := projectsNamed("app", "network", "core", "app2", "lone")
	ps[0].DependsOn = []string{"network"}
	ps[1].DependsOn = []string{"core"}
	ps[3].DependsOn = []string{"core"}
	var mu sync.Mutex
	var order []string
	got := ForEach(context.Background(), ps, PoolOptions{Limit: 4, Ordered: true}, func(_ context.Context, p project.Project, _ func(string)) report.Project {
		mu.Lock()
		order = append(order, p.Name)
		mu.Unlock()
		return planned()
	})
	pos := map[string]int{}
	for i, n := range order {
		pos[n] = i
	}
	if len(order) != 5 || pos["core"] > pos["network"] || pos["network"] > pos["app"] || pos["core"] > pos["app2"] {
		t.Fatalf("run order %v breaks depends_on", order)
	}
	if want := "app:planned network:planned core:planned app2:planned lone:planned"; statuses(got) != want {
		t.Fatalf("results = %s, want %s (project order, whatever the run order)", statuses(got), want)
	}
}

func TestForEachFailedDependencySkipsDependents(t *testing.T) {
	ps := projectsNamed("core", "network", "app", "lone")
	ps[1].DependsOn = []string{"core"}
	ps[2].DependsOn = []string{"network"}
	var ran sync.Map
	got := ForEach(context.Background(), ps, PoolOptions{Limit: 2, Ordered: true}, func(_ context.Context, p project.Project, _ func(string)) report.Project {
		ran.Store(p.Name, true)
		if p.Name == "core" {
			return report.Project{Status: report.StatusFailed, Error: "boom"}
		}
		return planned()
	})
	if want := "core:failed network:not_started app:not_started lone:planned"; statuses(got) != want {
		t.Fatalf("results = %s, want %s", statuses(got), want)
	}
	if _, ok := ran.Load("network"); ok {
		t.Error("a dependent of a failed project ran")
	}
	if got[1].Error != "it depends on core, which failed" || got[2].Error != "it depends on network, which did not start" {
		t.Errorf("reasons: %q, %q", got[1].Error, got[2].Error)
	}
	// Unordered (plan): dependencies do not gate anything.
	got = ForEach(context.Background(), ps, PoolOptions{Limit: 2}, func(_ context.Context, p project.Project, _ func(string)) report.Project {
		if p.Name == "core" {
			return report.Project{Status: report.StatusFailed, Error: "boom"}
		}
		return planned()
	})
	if want := "core:failed network:planned app:planned lone:planned"; statuses(got) != want {
		t.Fatalf("unordered results = %s, want %s", statuses(got), want)
	}
}

func TestForEachReportsPhasesOnce(t *testing.T) {
	p := &phaseLog{}
	ForEach(context.Background(), projectsNamed("a"), PoolOptions{Progress: p}, func(_ context.Context, _ project.Project, phase func(string)) report.Project {
		phase("init")
		phase("plan")
		return report.Project{Status: report.StatusFailed, Error: errors.New("x").Error()}
	})
	if got := strings.Join(p.events, " "); got != "start:init phase:plan finished:failed" {
		t.Fatalf("progress events = %s", got)
	}
}

type phaseLog struct {
	mu     sync.Mutex
	events []string
}

func (l *phaseLog) Start(_, phase string) { l.add("start:" + phase) }
func (l *phaseLog) Phase(_, phase string) { l.add("phase:" + phase) }
func (l *phaseLog) Detail(_, d string)    { l.add("detail:" + d) }
func (l *phaseLog) Finished(r report.Project) {
	l.add("finished:" + string(r.Status))
}
func (l *phaseLog) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, s)
}

// TestTerraformProcs checks how the CPUs are shared among the terraform processes a run has
// going at once.
func TestTerraformProcs(t *testing.T) {
	cpus := runtime.GOMAXPROCS(0)
	for _, tc := range []struct {
		limit, n, want int
	}{
		{limit: 1, n: 40, want: 0},              // one at a time: terraform's default
		{limit: 4, n: 1, want: 0},               // a single project
		{limit: 2, n: 40, want: max(1, cpus/2)}, // two at once share the CPUs
		{limit: 8, n: 3, want: max(1, cpus/3)},  // no more at once than there are projects
		{limit: 10 * cpus, n: 1000, want: 1},    // more at once than CPUs: at least one each
	} {
		if got := TerraformProcs(tc.limit, tc.n); got != tc.want {
			t.Errorf("TerraformProcs(%d, %d) = %d, want %d (%d CPUs)", tc.limit, tc.n, got, tc.want, cpus)
		}
	}
}

// Workspaces of one directory never run together: they count once.
func TestDirCount(t *testing.T) {
	ps := []project.Project{{Name: "a", Dir: "envs/a"}, {Name: "a-stage", Dir: "envs/a", Workspace: "stage"}, {Name: "b", Dir: "envs/b"}}
	if got := DirCount(ps); got != 2 {
		t.Errorf("DirCount = %d, want 2", got)
	}
	if got := DirCount(nil); got != 0 {
		t.Errorf("DirCount(nil) = %d", got)
	}
}
