// Package cli wires tfgate's cobra commands: flags → options → a call into a domain package.
// It is the only place that reads the process environment (with internal/ci) and exits.
package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/tfgate/tfgate/internal/secret"
)

// Main runs tfgate with the process's arguments, streams and environment, and returns the
// exit code. Ctrl-C and SIGTERM cancel the context, which interrupts terraform with SIGINT.
func Main() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Environ())
}

// Run is Main with every input explicit, for tests.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, environ []string) int {
	masker := secret.NewMasker(secret.FromEnv(environ))
	mout, merr := masker.Writer(stdout), masker.Writer(stderr)
	defer mout.Flush()
	defer merr.Flush()

	a := newApp(stdout, stderr, mout, merr, environ, masker)
	cmd := newRootCmd(a)
	cmd.SetArgs(args)
	cmd.SetIn(stdin)
	cmd.SetOut(mout)
	cmd.SetErr(merr)
	err := cmd.ExecuteContext(ctx)
	if err != nil && err.Error() != "" {
		fmt.Fprintf(merr, "tfgate: %s\n", err)
	}
	return exitCode(err)
}
