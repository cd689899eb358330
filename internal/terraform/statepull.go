package terraform

import (
	"context"
)

// StatePull returns the exact stdout bytes of `state pull`: the current state of the
// selected workspace as the backend holds it (lineage, serial, every object's attributes).
// It holds sensitive values in clear text, so it goes to the caller only, never to the log.
func (r *runner) StatePull(ctx context.Context) ([]byte, error) {
	return r.capture(ctx, "state pull", "state", "pull")
}

// ShowState returns the exact stdout bytes of `show -json` without a plan file: the current
// state's values, resource by resource, in the JSON form plans use. Sensitive values are in
// clear text: for the caller only.
func (r *runner) ShowState(ctx context.Context) ([]byte, error) {
	return r.capture(ctx, "show", "show", "-json", "-no-color")
}
