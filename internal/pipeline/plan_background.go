package pipeline

import "context"

// future is a call running beside the caller's own work: plan finds terraform and reads
// git while it selects projects and loads policies, instead of one after the other.
type future[T any] struct {
	done   chan struct{}
	cancel context.CancelFunc
	v      T
	err    error
}

// background starts f with a context of its own, cancelled by stop.
func background[T any](ctx context.Context, f func(context.Context) (T, error)) *future[T] {
	ctx, cancel := context.WithCancel(ctx)
	fu := &future[T]{done: make(chan struct{}), cancel: cancel}
	go func() {
		defer close(fu.done)
		fu.v, fu.err = f(ctx)
	}()
	return fu
}

// Wait returns f's result.
func (f *future[T]) Wait() (T, error) {
	<-f.done
	return f.v, f.err
}

// Stop cancels f if it still runs and waits for it: a run that ends early (nothing to
// plan, a policy that does not compile) leaves no process behind. Safe after wait.
func (f *future[T]) Stop() {
	f.cancel()
	<-f.done
}
