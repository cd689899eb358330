package terraform

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// waitFile polls for a file the fake terraform writes.
func waitFile(t *testing.T, path string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(path); err == nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s never appeared: the fake terraform did not start", path)
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// TestCancelInterrupts proves that a cancelled run sends terraform SIGINT
// and waits for it (so state locks are released) rather than killing it,
// and that a terraform ignoring SIGINT is still killed after the grace period.
// It covers both the tfexec path (plan) and tfgate's own exec (show).
func TestCancelInterrupts(t *testing.T) {
	t.Parallel()
	// The busy loop's sleep has its output redirected so that no orphan keeps
	// terraform's pipes open after the script is gone.
	const (
		graceful = `trap 'echo interrupted > "$MARKER"; exit 130' INT
echo started > "$STARTED"
while :; do /bin/sleep 0.05 >/dev/null 2>&1; done`
		stubborn = `trap 'echo ignored-interrupt > "$MARKER"' INT
echo started > "$STARTED"
while :; do /bin/sleep 0.05 >/dev/null 2>&1; done`
	)
	tests := []struct {
		name     string
		sub      string
		script   string
		grace    time.Duration
		wantMark string
		minTime  time.Duration // cancel → return
		maxTime  time.Duration
	}{
		{name: "plan stops on SIGINT", sub: "plan", script: graceful, grace: time.Minute, wantMark: "interrupted", maxTime: time.Minute},
		{name: "show stops on SIGINT", sub: "show", script: graceful, grace: time.Minute, wantMark: "interrupted", maxTime: time.Minute},
		{name: "plan killed after grace", sub: "plan", script: stubborn, grace: 500 * time.Millisecond, wantMark: "ignored-interrupt", minTime: 500 * time.Millisecond, maxTime: time.Minute},
		{name: "show killed after grace", sub: "show", script: stubborn, grace: 500 * time.Millisecond, wantMark: "ignored-interrupt", minTime: 500 * time.Millisecond, maxTime: time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tmp := t.TempDir()
			bin := writeFake(t, filepath.Join(tmp, "bin"), "terraform", "1.5.7", map[string]string{tt.sub: tt.script})
			marker, started := filepath.Join(tmp, "marker"), filepath.Join(tmp, "started")
			r, err := NewRunner(tmp, Binary{Path: bin, Flavor: FlavorTerraform}, RunnerOptions{
				Env:         map[string]string{"MARKER": marker, "STARTED": started},
				GracePeriod: tt.grace,
			})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() {
				if tt.sub == "plan" {
					_, err = r.Plan(ctx, PlanOptions{Out: "p"})
				} else {
					_, err = r.ShowPlan(ctx, "p")
				}
				done <- err
			}()
			waitFile(t, started)
			cancel()
			cancelled := time.Now()
			select {
			case err = <-done:
			case <-time.After(tt.maxTime):
				t.Fatalf("%s did not return within %s of cancellation", tt.sub, tt.maxTime)
			}
			took := time.Since(cancelled)
			if took < tt.minTime {
				t.Errorf("returned after %s, before the %s grace period", took, tt.minTime)
			}
			if !errors.Is(err, context.Canceled) {
				t.Errorf("error %v is not context.Canceled", err)
			}
			if want := "terraform " + tt.sub + " in " + tmp + ": interrupted (context canceled)"; err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("error %q, want prefix %q", err, want)
			}
			if got := readFile(t, marker); got != tt.wantMark {
				t.Errorf("marker = %q, want %q: terraform did not get SIGINT", got, tt.wantMark)
			}
		})
	}
}

// TestInitSerialised checks that inits never overlap, whichever runner runs
// them, and the flags init is given.
func TestInitSerialised(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	events := filepath.Join(tmp, "events")
	bin := writeFake(t, filepath.Join(tmp, "bin"), "terraform", "1.5.7", map[string]string{"init": `
echo "start $$ $*" >> "$EVENTS"
/bin/sleep 0.2
echo "end $$" >> "$EVENTS"`})
	const n = 4
	var runners []Runner
	for i := range n {
		dir := filepath.Join(tmp, fmt.Sprint("p", i))
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		r, err := NewRunner(dir, Binary{Path: bin, Flavor: FlavorTerraform}, RunnerOptions{Env: map[string]string{"EVENTS": events}})
		if err != nil {
			t.Fatal(err)
		}
		runners = append(runners, r)
	}
	initAll(t, runners)
	lines := strings.Split(readFile(t, events), "\n")
	if len(lines) != 2*n {
		t.Fatalf("events:\n%s", strings.Join(lines, "\n"))
	}
	for i := 0; i < len(lines); i += 2 {
		start, end := strings.Fields(lines[i]), strings.Fields(lines[i+1])
		if start[0] != "start" || end[0] != "end" || start[1] != end[1] {
			t.Fatalf("inits overlapped:\n%s", strings.Join(lines, "\n"))
		}
		args := strings.Join(start[2:], " ")
		for _, flag := range []string{"-no-color", "-input=false", "-upgrade=false"} {
			if !strings.Contains(args, flag) {
				t.Errorf("init args %q lack %s", args, flag)
			}
		}
	}
}

// initAll runs every runner's Init at once and fails on any error.
func initAll(t *testing.T, runners []Runner) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make([]error, len(runners))
	for i, r := range runners {
		wg.Go(func() { errs[i] = r.Init(context.Background()) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestInitLocalBackendInParallel checks that, with the shared plugin cache, projects on the
// local backend initialise at the same time, and those naming another backend (or a cloud
// block) still take turns: their inits set up state where other projects' states live.
func TestInitLocalBackendInParallel(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		files    map[string]string
		parallel bool
	}{
		{name: "no backend", files: map[string]string{"main.tf": `resource "terraform_data" "a" {}`}, parallel: true},
		{name: "local backend", files: map[string]string{"main.tf": `terraform {` + "\n" + `  backend "local" {}` + "\n}\n"}, parallel: false},
		{name: "pg backend", files: map[string]string{"main.tf": "", "backend.tf": `terraform { backend "pg" {} }`}, parallel: false},
		{name: "cloud block", files: map[string]string{"main.tf.json": `{"terraform": {"cloud": {}}}`}, parallel: false},
		{name: "backend recorded by an earlier init", files: map[string]string{"main.tf": "",
			".terraform/terraform.tfstate": `{"version": 3, "backend": {"type": "pg"}}`}, parallel: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tmp := t.TempDir()
			// Each init that starts before the other one ended announces itself and waits
			// for the other's announcement: two inits running at the same time both see
			// it ("during"). Taking turns, the first waits in vain and the second starts
			// after the first ended ("after").
			bin := writeFake(t, filepath.Join(tmp, "bin"), "terraform", "1.5.7", map[string]string{"init": `
if [ -e "$SYNC/$OTHER.end" ]; then echo after > "$SYNC/$SELF.seen"; touch "$SYNC/$SELF.end"; exit 0; fi
touch "$SYNC/$SELF.start"
i=0
while [ ! -e "$SYNC/$OTHER.start" ] && [ $i -lt "$WAIT" ]; do /bin/sleep 0.05; i=$((i+1)); done
if [ -e "$SYNC/$OTHER.start" ]; then echo during > "$SYNC/$SELF.seen"; fi
touch "$SYNC/$SELF.end"`})
			syncDir := filepath.Join(tmp, "sync")
			if err := os.Mkdir(syncDir, 0o755); err != nil {
				t.Fatal(err)
			}
			// Running together, each waits only for the other to start (at most 20 s, on
			// a loaded machine); taking turns, the first waits a second in vain.
			wait := "400"
			if !tc.parallel {
				wait = "20"
			}
			var runners []Runner
			for i, other := range []string{"p1", "p0"} {
				self := fmt.Sprint("p", i)
				dir := filepath.Join(tmp, self)
				for name, src := range tc.files {
					if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				r, err := NewRunner(dir, Binary{Path: bin, Flavor: FlavorTerraform}, RunnerOptions{
					Env:         map[string]string{"SYNC": syncDir, "SELF": self, "OTHER": other, "WAIT": wait},
					PluginCache: filepath.Join(tmp, "cache"),
				})
				if err != nil {
					t.Fatal(err)
				}
				runners = append(runners, r)
			}
			initAll(t, runners)
			var seen string
			for _, p := range []string{"p0", "p1"} {
				b, _ := os.ReadFile(filepath.Join(syncDir, p+".seen")) // missing: saw nothing
				seen += string(b)
			}
			during := strings.Count(seen, "during")
			if tc.parallel && during != 2 {
				t.Errorf("the two inits did not run at the same time: %q", seen)
			}
			if !tc.parallel && during != 0 {
				t.Errorf("the two inits overlapped: %q", seen)
			}
		})
	}
}

func TestInitWaitCancelled(t *testing.T) {
	// Not parallel: it holds the process-wide init lock.
	initSem <- struct{}{}
	defer func() { <-initSem }()
	tmp := t.TempDir()
	bin := writeFake(t, filepath.Join(tmp, "bin"), "terraform", "1.5.7", nil)
	r, err := NewRunner(tmp, Binary{Path: bin, Flavor: FlavorTerraform}, RunnerOptions{Name: "envs/a"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	err = r.Init(ctx)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "terraform init in envs/a: interrupted") {
		t.Errorf("got %v, want a deadline error while waiting for the init lock", err)
	}
}

// TestRunnerEnv checks what environment terraform gets: exactly the given
// one, plus the variables tfexec manages, and nothing from the process.
func TestRunnerEnv(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	dump := filepath.Join(tmp, "env")
	script := `/usr/bin/env > "$DUMP"`
	bin := writeFake(t, filepath.Join(tmp, "bin"), "terraform", "1.5.7", map[string]string{"plan": script, "show": script})
	given := map[string]string{
		"DUMP":             dump,
		"TF_VAR_secret":    "s3cr3t",
		"TF_CLI_ARGS_plan": "-compact-warnings",
		"TF_IN_AUTOMATION": "1",
		"TF_INPUT":         "0",
		"TF_WORKSPACE":     "ignored",
		"TF_LOG":           "DEBUG",
	}
	var log strings.Builder
	r, err := NewRunner(tmp, Binary{Path: bin, Flavor: FlavorTerraform}, RunnerOptions{Env: given, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	managed := map[string]bool{"TF_APPEND_USER_AGENT": true, "TF_LOG_CORE": true, "TF_LOG_PATH": true,
		"TF_LOG_PROVIDER": true, "CHECKPOINT_DISABLE": true, "PWD": true, "SHLVL": true, "_": true}
	for _, sub := range []string{"plan", "show"} {
		ctx := context.Background()
		if sub == "plan" {
			_, err = r.Plan(ctx, PlanOptions{})
		} else {
			_, err = r.ShowPlan(ctx, "p")
		}
		// The fake show prints nothing on stdout, which ShowPlan reports.
		if err != nil && sub == "plan" {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, line := range strings.Split(readFile(t, dump), "\n") {
			k, v, _ := strings.Cut(line, "=")
			got[k] = v
		}
		for k, v := range given {
			want := v
			switch k {
			case "TF_WORKSPACE":
				if _, ok := got[k]; ok {
					t.Errorf("%s: TF_WORKSPACE reached terraform; workspaces go through SelectWorkspace", sub)
				}
				continue
			case "TF_LOG":
				want = "" // debug logs would corrupt the JSON on stdout
			}
			if got[k] != want {
				t.Errorf("%s: %s = %q, want %q", sub, k, got[k], want)
			}
		}
		if got["CHECKPOINT_DISABLE"] != "1" {
			t.Errorf("%s: CHECKPOINT_DISABLE = %q, want 1 by default", sub, got["CHECKPOINT_DISABLE"])
		}
		for k := range got {
			if _, ok := given[k]; !ok && !managed[k] {
				t.Errorf("%s: terraform got %s, which the caller did not give", sub, k)
			}
		}
	}
	if strings.Contains(log.String(), "s3cr3t") {
		t.Error("an environment value reached the log")
	}
}

// TestRunnerMaxProcs checks that MaxProcs becomes terraform's GOMAXPROCS for every command,
// and that a GOMAXPROCS the caller gives wins.
func TestRunnerMaxProcs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		env      map[string]string
		maxProcs int
		want     string // "" = not set
	}{
		{name: "unset", want: ""},
		{name: "set", maxProcs: 1, want: "1"},
		{name: "caller's wins", env: map[string]string{"GOMAXPROCS": "3"}, maxProcs: 1, want: "3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			checkTerraformEnv(t, tc.env, RunnerOptions{MaxProcs: tc.maxProcs}, "GOMAXPROCS", tc.want)
		})
	}
}

// TestCommandErrorStderrTail checks that errors carry the end of stderr,
// without colour codes, when terraform prints a lot.
func TestCommandErrorStderrTail(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	bin := writeFake(t, filepath.Join(tmp, "bin"), "terraform", "1.5.7", map[string]string{"plan": `
i=0
while [ $i -lt 400 ]; do printf '\033[33mWarning: noise line %s of the log\033[0m\n' $i >&2; i=$((i+1)); done
printf '\033[31mError: boom\033[0m\n  on main.tf line 7\n' >&2
exit 1`})
	r, err := NewRunner(tmp, Binary{Path: bin, Flavor: FlavorTerraform}, RunnerOptions{Name: "envs/x"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Plan(context.Background(), PlanOptions{})
	var ce *CommandError
	if !errors.As(err, &ce) {
		t.Fatalf("got %T %v, want *CommandError", err, err)
	}
	if !strings.HasPrefix(err.Error(), "terraform plan in envs/x: exit status 1\n…\n") {
		t.Errorf("error head: %q", err.Error()[:min(80, len(err.Error()))])
	}
	if !strings.HasSuffix(ce.Stderr, "Error: boom\n  on main.tf line 7") || strings.Contains(ce.Stderr, "\x1b") {
		t.Errorf("stderr tail: %q", ce.Stderr[max(0, len(ce.Stderr)-120):])
	}
	if len(ce.Stderr) > stderrTailBytes+10 || strings.Contains(ce.Stderr, "line 0 of") {
		t.Errorf("stderr tail is %d bytes and still holds the start", len(ce.Stderr))
	}
}

// TestCancelReleasesStateLock runs the real terraform on a plan that takes
// far longer than the test, cancels it once the local state lock is held, and
// checks that terraform stopped by itself and released the lock.
func TestCancelReleasesStateLock(t *testing.T) {
	t.Parallel()
	slow := "resource \"terraform_data\" \"x\" {\n  count = 5000\n  input = count.index\n}\n"
	dir := writeFiles(t, map[string]string{"main.tf": slow})
	bin := realTerraform(t)
	r, err := NewRunner(dir, bin, RunnerOptions{Env: testEnv(t), Name: "envs/slow", GracePeriod: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := r.Init(ctx); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := r.Plan(ctx, PlanOptions{Out: "p"})
		done <- err
	}()
	lock := filepath.Join(dir, ".terraform.tfstate.lock.info")
	start := time.Now()
	waitFile(t, lock)
	t.Logf("lock after %s", time.Since(start))
	time.Sleep(500 * time.Millisecond)
	cancel()
	start = time.Now()
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("terraform did not stop within 30s of SIGINT")
	}
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), bin.Flavor+" plan in envs/slow: interrupted") {
		t.Errorf("got %v, want an interrupted plan", err)
	}
	t.Logf("stopped after %s", time.Since(start))
	if _, err := os.Stat(lock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("state lock still held after cancellation: %v", err)
	}
	// A new run must not trip over a stale lock.
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(dataConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Plan(context.Background(), PlanOptions{}); err != nil {
		t.Errorf("plan after cancellation: %v", err)
	}
}

func TestInitWaitReported(t *testing.T) {
	// Not parallel: it holds the process-wide init lock.
	initSem <- struct{}{}
	tmp := t.TempDir()
	bin := writeFake(t, filepath.Join(tmp, "bin"), "terraform", "1.5.7", map[string]string{"init": "exit 0"})
	var mu sync.Mutex
	var events []bool
	waiting := make(chan struct{})
	r, err := NewRunner(tmp, Binary{Path: bin, Flavor: FlavorTerraform}, RunnerOptions{InitWait: func(w bool) {
		mu.Lock()
		events = append(events, w)
		mu.Unlock()
		if w {
			close(waiting)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- r.Init(context.Background()) }()
	<-waiting
	<-initSem // let it go
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if fmt.Sprint(events) != "[true false]" {
		t.Fatalf("InitWait events = %v, want [true false]", events)
	}
	// Without contention only the start is reported: progress shows "init" once.
	events = nil
	mu.Unlock()
	err = r.Init(context.Background())
	mu.Lock()
	if err != nil || fmt.Sprint(events) != "[false]" {
		t.Fatalf("uncontended init: err %v, events %v, want [false]", err, events)
	}
}
