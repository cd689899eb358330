package terraform

import (
	"bytes"
	"context"
	"io"
)

// StatePull returns the exact stdout bytes of `state pull`: the current state of the
// selected workspace as the backend holds it (lineage, serial, every object's attributes).
// It holds sensitive values in clear text, so it goes to the caller only, never to the log.
func (r *runner) StatePull(ctx context.Context) ([]byte, error) {
	var out bytes.Buffer
	err := r.run(ctx, "state pull", func() error {
		cmd := r.direct(ctx, r.execEnv(), "state", "pull")
		cmd.Stdout = &out
		cmd.Stderr = io.MultiWriter(r.log, r.stderr)
		return r.runDirect(cmd)
	})
	if err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// ShowState returns the exact stdout bytes of `show -json` without a plan file: the current
// state's values, resource by resource, in the JSON form plans use. Sensitive values are in
// clear text: for the caller only.
func (r *runner) ShowState(ctx context.Context) ([]byte, error) {
	var out bytes.Buffer
	err := r.run(ctx, "show", func() error {
		cmd := r.direct(ctx, r.execEnv(), "show", "-json", "-no-color")
		cmd.Stdout = &out
		cmd.Stderr = io.MultiWriter(r.log, r.stderr)
		return r.runDirect(cmd)
	})
	if err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}
