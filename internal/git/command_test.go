package git

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestCancelledGitLeavesNoLock: a query cancelled while git holds .git/index.lock (git diff
// writing back a refreshed index) is stopped so that git removes its lock, as git does on
// SIGTERM; killed, it would leave the lock, and the user's next git command would fail
// with "index.lock: File exists". The stand-in git takes the lock, removes it on SIGTERM
// as git's lockfile code does, and runs until stopped; it also records its environment.
func TestCancelledGitLeavesNoLock(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGTERM on Windows: git is killed there")
	}
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	script := `#!/bin/sh
env > .git/env
sleep 600 &
pid=$!
trap 'rm -f .git/index.lock; kill $pid; exit 143' TERM
: > .git/index.lock
wait $pid
`
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := Git{Dir: dir}.run(ctx, "diff", "--name-only", "HEAD", "--")
		done <- err
	}()
	lock := filepath.Join(dir, ".git", "index.lock")
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(lock); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the stand-in git never took the lock")
		}
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("run = %v, want the cancellation", err)
	}
	if _, err := os.Stat(lock); err == nil {
		t.Error(".git/index.lock is left behind: the cancelled git was killed, not stopped")
	}
	env, err := os.ReadFile(filepath.Join(dir, ".git", "env"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(env), "GIT_OPTIONAL_LOCKS=0\n") {
		t.Error("git runs without GIT_OPTIONAL_LOCKS=0: git status would write the index back")
	}
}
