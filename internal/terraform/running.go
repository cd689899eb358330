package terraform

import "sync/atomic"

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
