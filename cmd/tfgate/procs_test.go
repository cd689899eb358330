package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// procs N [WAIT] checks that N terraform, tofu or provider processes run in the script's
// work directory (their working directory is under $WORK), waiting up to WAIT for it; it
// prints them. After a run has ended, 0 means nothing was left behind (an orphaned provider,
// an apply still running).
func cmdProcs(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: procs N [WAIT]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	var wait time.Duration
	if len(args) == 2 {
		wait, err = time.ParseDuration(args[1])
		ts.Check(err)
	}
	work := ts.Getenv("WORK")
	for deadline := time.Now().Add(wait); ; time.Sleep(50 * time.Millisecond) {
		got := TerraformProcs(work)
		if len(got) == want {
			ts.Logf("%d terraform processes under $WORK: %s", len(got), strings.Join(got, "; "))
			return
		}
		if !time.Now().Before(deadline) {
			ts.Fatalf("%d terraform processes under $WORK (%s), want %d", len(got), strings.Join(got, "; "), want)
		}
	}
}

// TerraformProcs lists the terraform, tofu and provider processes (pid and command line)
// whose working directory is under dir.
func TerraformProcs(dir string) []string {
	entries, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		cwd, err := os.Readlink(filepath.Join("/proc", e.Name(), "cwd"))
		if err != nil || (cwd != dir && !strings.HasPrefix(cwd, dir+"/")) {
			continue
		}
		raw, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || len(raw) == 0 {
			continue
		}
		argv := strings.Split(strings.TrimRight(string(raw), "\x00"), "\x00")
		base := filepath.Base(argv[0])
		if base == "terraform" || base == "tofu" || strings.HasPrefix(base, "terraform-provider-") {
			if st, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil && zombie(string(st)) {
				continue
			}
			out = append(out, e.Name()+" "+strings.Join(argv, " "))
		}
	}
	return out
}

// zombie reports whether /proc/PID/stat says the process has exited (state Z or X).
func zombie(stat string) bool {
	i := strings.LastIndexByte(stat, ')')
	return i >= 0 && len(stat) > i+2 && (stat[i+2] == 'Z' || stat[i+2] == 'X')
}

// killtf SIGNAL sends SIGNAL (KILL, TERM, INT) to the terraform and tofu processes under
// $WORK (not their providers), by pid: terraform dying under tfgate.
func cmdKillTF(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: killtf KILL|TERM|INT")
	}
	sig := map[string]syscall.Signal{"KILL": syscall.SIGKILL, "TERM": syscall.SIGTERM, "INT": syscall.SIGINT}[args[0]]
	if sig == 0 {
		ts.Fatalf("killtf: unknown signal %q", args[0])
	}
	n := 0
	for _, p := range TerraformProcs(ts.Getenv("WORK")) {
		pid, cmdline, _ := strings.Cut(p, " ")
		if strings.Contains(filepath.Base(strings.Fields(cmdline)[0]), "provider") {
			continue
		}
		id, _ := strconv.Atoi(pid)
		if syscall.Kill(id, sig) == nil {
			n++
		}
	}
	if n == 0 {
		ts.Fatalf("killtf: no terraform process under $WORK")
	}
}
