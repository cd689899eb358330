package terraform

import "github.com/tfgate/tfgate/internal/guard"

// ReadGuard is what terraform, and everything it starts, runs unable to reach
// (RunnerOptions.Guard): package guard's Spec, named here so that the runner's callers
// speak of terraform's options only.
type ReadGuard = guard.Spec

// GuardAvailable is why terraform cannot run under the read guard on this machine (no
// Landlock), nil when it can.
func GuardAvailable() error {
	_, err := guard.Available()
	return err
}
