package terraform

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// ApplyOptions are the flags of applying a saved plan.
type ApplyOptions struct {
	// LockTimeout is how long terraform waits for a state lock another run holds before it
	// gives up; 0 = fail at once.
	LockTimeout time.Duration
	// Progress, when set, is called as for PlanOptions.Progress: Applied and Failed out of
	// ToApply.
	Progress func(Progress)
}

// Apply runs `apply -json -input=false -lock=true planFile`: exactly the saved plan, never
// a new one (a saved plan needs no -auto-approve, and terraform refuses one whose state
// moved). Like plan it runs without tfexec, so that an interrupted apply always waits for
// terraform to write its state and release the lock; and like plan it reads terraform's
// machine-readable UI, for progress.
func (r *runner) Apply(ctx context.Context, planFile string, opts ApplyOptions) error {
	if planFile == "" {
		return fmt.Errorf("%s apply in %s: no plan file given", r.bin.Flavor, r.name)
	}
	args := []string{"apply", "-json", "-no-color", "-input=false", "-lock=true"}
	if opts.LockTimeout > 0 {
		args = append(args, lockTimeoutFlag(opts.LockTimeout))
	}
	args = append(args, planFile)
	return r.run(ctx, "apply", func() error {
		cmd := command(ctx, r.exe, r.dir, r.execEnv(), r.grace, args...)
		ui := newUIStream(r.log, r.stderr, opts.Progress)
		// An apply must survive tfgate: files, not pipes (followOutput).
		out, err := followOutput(cmd, ui, io.MultiWriter(r.log, r.stderr))
		if err != nil {
			return err
		}
		err = out.run(cmd)
		ui.close()
		return err
	})
}

// lockTimeoutFlag is -lock-timeout in whole seconds (at least one).
func lockTimeoutFlag(d time.Duration) string {
	return fmt.Sprintf("-lock-timeout=%ds", max(1, int(d.Round(time.Second)/time.Second)))
}

// IsStalePlan reports whether err is terraform refusing a saved plan because the state
// changed since it was made (another apply, or this one run twice): nothing was applied,
// and only a new plan can go on.
func IsStalePlan(err error) bool {
	var ce *CommandError
	return errors.As(err, &ce) && strings.Contains(ce.Stderr, "Saved plan is stale")
}

// IsLocked reports whether err is terraform failing to take the state lock (another run
// holds it): nothing was applied.
func IsLocked(err error) bool {
	var ce *CommandError
	return errors.As(err, &ce) && strings.Contains(ce.Stderr, "Error acquiring the state lock")
}
