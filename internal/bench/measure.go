package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
	"time"
)

// Command is one process: an argument vector run in Dir with exactly Env.
type Command struct {
	Args []string
	Dir  string
	Env  []string
	// OK lists the exit codes that are success besides 0 (a policy denial, for example).
	OK []int
}

// Sequence is what one side of a comparison runs: its commands one after the other, each
// a whole process. A sample is the wall time of the whole sequence.
type Sequence struct {
	Name     string
	Commands []Command
}

// Sample is one run of a Sequence.
type Sample struct {
	Wall   time.Duration
	MaxRSS int64 // bytes: the largest resident set of the sequence's processes
	// CPU is the user and system time of the sequence's processes: unlike the wall time, it
	// hardly depends on how many others share the CPUs.
	CPU time.Duration
}

// run executes the sequence once and measures it. Output is discarded but kept for the
// error of a command that fails.
func (s Sequence) run(ctx context.Context) (Sample, error) {
	var smp Sample
	start := time.Now()
	for _, c := range s.Commands {
		cmd := exec.CommandContext(ctx, c.Args[0], c.Args[1:]...)
		cmd.Dir, cmd.Env = c.Dir, c.Env
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		if cmd.ProcessState == nil {
			return smp, fmt.Errorf("%s: %s: %w", s.Name, strings.Join(c.Args, " "), err)
		}
		if code := cmd.ProcessState.ExitCode(); err != nil && !slices.Contains(c.OK, code) {
			return smp, fmt.Errorf("%s: %s (in %s): %v\n%s", s.Name, strings.Join(c.Args, " "), c.Dir, err, tail(out.String(), 2000))
		}
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			smp.MaxRSS = max(smp.MaxRSS, ru.Maxrss*1024) // Linux reports kilobytes
		}
		smp.CPU += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	smp.Wall = time.Since(start)
	return smp, nil
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// Stats summarise the samples of one side: medians resist the outliers of a shared machine.
type Stats struct {
	Samples []Sample
}

func (st Stats) Wall() time.Duration {
	w := make([]time.Duration, len(st.Samples))
	for i, s := range st.Samples {
		w[i] = s.Wall
	}
	return median(w)
}

func (st Stats) CPU() time.Duration {
	c := make([]time.Duration, len(st.Samples))
	for i, s := range st.Samples {
		c[i] = s.CPU
	}
	return median(c)
}

func (st Stats) MaxRSS() int64 {
	r := make([]int64, len(st.Samples))
	for i, s := range st.Samples {
		r[i] = s.MaxRSS
	}
	return median(r)
}

func median[T int64 | time.Duration](xs []T) T {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// compare runs seqs in turn, n rounds after one warm-up round of each (whose samples are
// dropped: first runs fill caches, the version cache among them). Each round starts one
// sequence further on (ab, ba, ab, …; abc, bca, cab, …) so that none always runs after
// another, and the machine's load at any moment falls on all: only the ratios within one
// run mean anything on a shared machine. It returns each one's samples, in seqs' order.
func compare(ctx context.Context, seqs []Sequence, n int, progress func(string)) ([]Stats, error) {
	// A child's peak RSS starts at its parent's peak: Go starts processes with vfork, and
	// Linux counts the parent's high-water mark, at exec, as the child's. Give back what
	// setting up took (a 36 MB plan generated, and its copies) and reset the mark, or every
	// command is measured at least as large as this process ever was.
	debug.FreeOSMemory()
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) // 5: reset the peak RSS
	st := make([]Stats, len(seqs))
	for round := -1; round < n; round++ {
		first := (round%len(seqs) + len(seqs)) % len(seqs) // the warm-up starts with the last
		for k := range seqs {
			i := (first + k) % len(seqs)
			smp, err := seqs[i].run(ctx)
			if err != nil {
				return st, err
			}
			if round >= 0 {
				st[i].Samples = append(st[i].Samples, smp)
			}
		}
		if progress != nil && round >= 0 {
			progress(fmt.Sprintf("round %d/%d", round+1, n))
		}
	}
	return st, nil
}
