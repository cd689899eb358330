// Package cli wires tfgate's cobra commands: flags → a request → one runner of
// internal/pipeline (or a domain package) → a renderer → the exit code (exit.go). It is the
// only place that reads the process environment (with internal/ci), knows the flags (an
// option error from below names the request field; option_errors.go writes the flag), and
// exits. No orchestration, no rules and no text of its own beyond the commands' help.
package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/tfgate/tfgate/internal/pipeline"
	"github.com/tfgate/tfgate/internal/policy"
	"github.com/tfgate/tfgate/internal/render"
	"github.com/tfgate/tfgate/internal/secret"
	"github.com/tfgate/tfgate/internal/terraform"
)

// Main runs tfgate with the process's arguments, streams and environment, and returns the
// exit code. Ctrl-C and SIGTERM cancel the context, which interrupts terraform with SIGINT
// and waits for it to stop (releasing its state lock); a second one exits at once, leaving
// terraform to finish stopping on its own. When no terraform runs, the first one exits at
// once (see watchSignals).
func Main() int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	busy := func() int { return terraform.Running() + pipeline.Applying() }
	go watchSignals(sigs, cancel, busy, os.Stderr, os.Exit)
	if err := setPolicyMemoryLimit(os.Getenv(policyMemoryEnv)); err != nil {
		fmt.Fprintln(os.Stderr, render.NeutralizeCommands(fmt.Sprintf("tfgate: %s", err)))
		return ExitError
	}
	return Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Environ())
}

// watchSignals handles Ctrl-C and SIGTERM. The first cancels the run. If terraform is
// running, tfgate then waits for it to stop, so that it releases its state lock; a second
// signal exits at once. If none is, there is nothing to wait for — tfgate may be blocked
// reading a file or waiting for git, which no context stops — so it exits at once with the
// shell's code for the signal.
func watchSignals(sigs <-chan os.Signal, cancel func(), running func() int, stderr io.Writer, exit func(int)) {
	sig, ok := <-sigs
	if !ok {
		return
	}
	cancel() // before counting: a cancelled context starts no terraform
	if running() == 0 {
		fmt.Fprintf(stderr, "tfgate: interrupted (%s); no terraform was running\n", signalName(sig))
		exit(signalExitCode(sig))
		return
	}
	fmt.Fprintln(stderr, "tfgate: interrupting terraform and waiting for it to release its locks (Ctrl-C again to exit now)")
	if _, ok := <-sigs; ok {
		fmt.Fprintln(stderr, "tfgate: exiting; terraform may still be stopping in the background")
		exit(ExitError)
	}
}

// policyMemoryEnv overrides policy.DefaultMemoryLimit. It is read by Main, not Run: the
// limit is process-wide, like the heap it bounds.
const policyMemoryEnv = "TFGATE_POLICY_MAX_MEMORY"

func setPolicyMemoryLimit(value string) error {
	if value == "" {
		return nil
	}
	n, err := parseSize(value)
	if err != nil {
		return fmt.Errorf("%s=%q: %w", policyMemoryEnv, value, err)
	}
	policy.SetMemoryLimit(n)
	return nil
}

// Run is Main with every input explicit, for tests.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, environ []string) int {
	masker := secret.NewMasker(secret.FromEnv(environ))
	mout, merr := masker.Writer(stdout), masker.Writer(stderr)
	defer mout.Flush()
	defer merr.Flush()
	// Above the masker, so that tfgate's own workflow commands are masked too; flushed
	// before it.
	gout, gerr := render.GuardCommands(mout), render.GuardCommands(merr)
	defer gout.Flush()
	defer gerr.Flush()

	a := newApp(stdout, stderr, gout, gerr, environ, masker)
	cmd := newRootCmd(a)
	cmd.SetArgs(args)
	cmd.SetIn(withInputLimit(stdin, a.getenv(maxInputEnv)))
	cmd.SetOut(gout)
	cmd.SetErr(gerr)
	err := cmd.ExecuteContext(ctx)
	if err != nil && err.Error() != "" {
		fmt.Fprintf(gerr, "tfgate: %s\n", errorMessage(err))
	}
	return exitCode(err)
}
