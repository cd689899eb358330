package terraform

import (
	"context"
	"os/exec"
	"slices"
	"strings"

	"github.com/tfgate/tfgate/internal/guard"
)

// The commands tfgate runs itself (init, plan, show, state pull) start terraform from a
// thread of tfgate's restricted by the read guard (guard.Start), not through the guard's
// re-exec of tfgate's own binary, which costs a start of a large binary each: about 6 ms
// of a tiny project's 90 ms of terraform, three times a plan. Those tfexec runs (the
// workspace commands) and apply (whose output goes through files, to survive tfgate) keep
// the re-exec.

// inProcessGuard is a runner's read guard for the commands it starts in-process.
type inProcessGuard struct {
	spec *ReadGuard // nil: no guard
	keys []string   // the variables of the wrapper's re-exec, which those commands go without
}

func newInProcessGuard(spec *ReadGuard, wrapperEnv []string) inProcessGuard {
	g := inProcessGuard{spec: spec}
	for _, kv := range wrapperEnv {
		k, _, _ := strings.Cut(kv, "=")
		g.keys = append(g.keys, k)
	}
	return g
}

// direct builds such a command: the wrapper's re-exec without a guard to start in-process,
// terraform itself with one (and without the wrapper's variable).
func (r *runner) direct(ctx context.Context, env []string, args ...string) *exec.Cmd {
	if r.inProcess.spec == nil {
		return command(ctx, r.exe, r.dir, env, r.grace, args...)
	}
	env = slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		return slices.ContainsFunc(r.inProcess.keys, func(k string) bool { return strings.HasPrefix(kv, k+"=") })
	})
	return command(ctx, r.bin.Path, r.dir, env, r.grace, args...)
}

// runDirect runs a command built by direct to its end.
func (r *runner) runDirect(cmd *exec.Cmd) error {
	if r.inProcess.spec == nil {
		return cmd.Run()
	}
	if err := guard.Start(*r.inProcess.spec, cmd); err != nil {
		return err
	}
	return cmd.Wait()
}
