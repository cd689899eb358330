package terraform

import (
	"context"
	"runtime"
	"sync/atomic"
)

// running counts the terraform processes of this process that have not exited.
var running atomic.Int64

// Running returns how many terraform processes tfgate has started (in any Runner, or to
// probe a version) and not yet seen exit. On an interrupt, cli waits for them only when
// there are some: with none, there is no state lock to release and tfgate stops at once.
//
// A caller that cancels the context of every command and then reads zero knows none will
// start later either: the count goes up before a command starts, and a command whose
// context is done is never started.
func Running() int { return int(running.Load()) }

// tracked runs fn, which starts a terraform process and waits for it, counted by Running.
func tracked(fn func() error) error {
	running.Add(1)
	defer running.Add(-1)
	return fn()
}

// run executes one tfexec call and turns its error into a CommandError.
func (r *runner) run(ctx context.Context, sub string, fn func() error) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	// tfexec starts terraform with Pdeathsig SIGKILL, which the kernel sends when the thread
	// that started it ends, and every guarded start ends the thread it restricted
	// (guard.Start). Held on one thread until terraform has exited, the call's thread is
	// never another goroutine's to end under it.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	r.stderr.Reset()
	if err := tracked(fn); err != nil {
		return r.commandError(ctx, sub, err)
	}
	return nil
}

func (r *runner) commandError(ctx context.Context, sub string, err error) error {
	return &CommandError{
		Command: r.bin.Flavor + " " + sub,
		Dir:     r.name,
		Stderr:  r.stderr.String(),
		Err:     err,
		Ctx:     ctx.Err(),
	}
}
