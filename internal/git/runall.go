package git

import (
	"context"
	"sync"
)

// runAll runs the read-only queries at the same time (each git process is mostly its own
// start) and returns their outputs in order; the error is that of the first query, in
// order, that failed.
func (g Git) runAll(ctx context.Context, queries [][]string) ([][]byte, error) {
	outs := make([][]byte, len(queries))
	errs := make([]error, len(queries))
	var wg sync.WaitGroup
	for i, q := range queries {
		wg.Go(func() { outs[i], errs[i] = g.run(ctx, q...) })
	}
	wg.Wait()
	return outs, firstErr(errs)
}

func firstErr(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
