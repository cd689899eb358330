package cli

import (
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func TestWatchSignals(t *testing.T) {
	tests := []struct {
		name       string
		running    int
		sigs       []os.Signal
		wantExit   int // -1: no exit
		wantStderr string
	}{
		{"Ctrl-C with no terraform exits at once", 0, []os.Signal{os.Interrupt}, ExitInterrupted,
			"tfgate: interrupted (SIGINT); no terraform was running\n"},
		{"SIGTERM with no terraform exits at once", 0, []os.Signal{syscall.SIGTERM}, ExitTerminated,
			"tfgate: interrupted (SIGTERM); no terraform was running\n"},
		{"terraform running: the first signal waits for it", 2, []os.Signal{syscall.SIGTERM}, -1,
			"tfgate: interrupting terraform and waiting for it to release its locks (Ctrl-C again to exit now)\n"},
		{"terraform running: a second signal exits", 1, []os.Signal{os.Interrupt, os.Interrupt}, ExitError,
			"tfgate: interrupting terraform and waiting for it to release its locks (Ctrl-C again to exit now)\n" +
				"tfgate: exiting; terraform may still be stopping in the background\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Closed after the signals: a watch still waiting for terraform then returns.
			sigs := make(chan os.Signal, len(tt.sigs))
			for _, s := range tt.sigs {
				sigs <- s
			}
			close(sigs)
			var (
				mu        sync.Mutex
				stderr    strings.Builder
				cancelled bool
				exited    = -1
			)
			cancel := func() { mu.Lock(); cancelled = true; mu.Unlock() }
			exit := func(code int) { mu.Lock(); exited = code; mu.Unlock() }
			done := make(chan struct{})
			go func() {
				defer close(done)
				watchSignals(sigs, cancel, func() int { return tt.running }, &lockedWriter{mu: &mu, w: &stderr}, exit)
			}()
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				t.Fatal("watchSignals did not return")
			}
			mu.Lock()
			defer mu.Unlock()
			if !cancelled {
				t.Error("the run was not cancelled")
			}
			if exited != tt.wantExit {
				t.Errorf("exit code %d, want %d", exited, tt.wantExit)
			}
			if stderr.String() != tt.wantStderr {
				t.Errorf("stderr %q, want %q", stderr.String(), tt.wantStderr)
			}
		})
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *strings.Builder
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
