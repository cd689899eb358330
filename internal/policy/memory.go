package policy

import (
	"context"
	"fmt"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultMemoryLimit is the heap size at which policy evaluations are stopped, unless
// SetMemoryLimit says otherwise.
//
// OPA bounds neither the memory nor the steps of an evaluation, only its time, and a
// policy can build a value that exhausts memory well within EvalTimeout
// (numbers.range(1, 1e9) is a few lines of Rego and tens of gigabytes). While evaluations
// run, a watchdog reads the process's heap and, past the limit, cancels them, which
// fails them closed like a timeout does.
const DefaultMemoryLimit = 4 << 30

// memoryPoll is how often the watchdog reads the heap size: reading it costs microseconds,
// and a policy doubling a value at each step gets only a few doublings between two reads.
const memoryPoll = 10 * time.Millisecond

var memoryLimit atomic.Int64

func init() { memoryLimit.Store(DefaultMemoryLimit) }

// SetMemoryLimit sets the heap size, in bytes, past which running policy evaluations and
// policy tests are stopped, and returns the previous one; 0 or less restores
// DefaultMemoryLimit. It is process-wide, like the heap it measures (and like
// runtime/debug.SetMemoryLimit): when the heap passes it, every evaluation running stops.
func SetMemoryLimit(bytes int64) int64 {
	if bytes <= 0 {
		bytes = DefaultMemoryLimit
	}
	return memoryLimit.Swap(bytes)
}

// errMemory is the cause of an evaluation's context when the watchdog ends it.
type errMemory struct{ limit int64 }

func (e errMemory) Error() string {
	return fmt.Sprintf("policy evaluation stopped: tfgate's memory use passed %s; a policy builds a value too large for this plan", formatBytes(e.limit))
}

func formatBytes(n int64) string {
	if n >= 1<<30 && n%(1<<30) == 0 {
		return fmt.Sprintf("%d GiB", n>>30)
	}
	return fmt.Sprintf("%d MiB", n>>20)
}

// watchdog cancels the watched contexts when the heap passes memoryLimit. It runs only
// while some context is watched.
var watchdog struct {
	mu      sync.Mutex
	watched map[*watched]struct{}
	polling bool // a watchHeap goroutine runs
}

type watched struct{ cancel context.CancelCauseFunc }

// watchMemory returns a context that the watchdog cancels, with an errMemory cause, when
// the heap passes the limit; stop releases it and must be called.
func watchMemory(ctx context.Context) (_ context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	w := &watched{cancel: cancel}
	watchdog.mu.Lock()
	if watchdog.watched == nil {
		watchdog.watched = map[*watched]struct{}{}
	}
	if !watchdog.polling {
		watchdog.polling = true
		go watchHeap()
	}
	watchdog.watched[w] = struct{}{}
	watchdog.mu.Unlock()
	return ctx, func() {
		watchdog.mu.Lock()
		delete(watchdog.watched, w)
		watchdog.mu.Unlock()
		cancel(nil)
	}
}

// watchHeap polls the heap until nothing is watched.
func watchHeap() {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	tick := time.NewTicker(memoryPoll)
	defer tick.Stop()
	for range tick.C {
		metrics.Read(sample)
		limit := memoryLimit.Load()
		over := sample[0].Value.Kind() == metrics.KindUint64 && sample[0].Value.Uint64() > uint64(limit)
		watchdog.mu.Lock()
		if len(watchdog.watched) == 0 {
			watchdog.polling = false
			watchdog.mu.Unlock()
			return
		}
		if over {
			for w := range watchdog.watched {
				w.cancel(errMemory{limit: limit})
			}
		}
		watchdog.mu.Unlock()
	}
}
