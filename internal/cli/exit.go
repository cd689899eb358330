package cli

import (
	"errors"
	"os"
	"syscall"
)

// Exit codes: the one table, shared by every command (see README "Exit codes").
const (
	ExitOK           = 0 // success; nothing to report
	ExitError        = 1 // error: bad input, terraform failed, GitHub unreachable, …
	ExitChanges      = 2 // changes present (plan --detailed-exitcode) or drift, pending code or a failed check (drift)
	ExitPolicyDenied = 3 // a policy denied the plan
	ExitGateRefused  = 4 // the approval gate refused (apply not allowed)
	// A signal while no terraform runs ends tfgate at once with the shell's code for it
	// (128 + the signal number); with terraform running, tfgate waits for it and exits 1.
	ExitInterrupted = 130 // SIGINT (Ctrl-C)
	ExitTerminated  = 143 // SIGTERM
)

// signalExitCode is the exit code for ending on sig.
func signalExitCode(sig os.Signal) int {
	if sig == syscall.SIGTERM {
		return ExitTerminated
	}
	return ExitInterrupted
}

// signalName names sig as users know it.
func signalName(sig os.Signal) string {
	if sig == syscall.SIGTERM {
		return "SIGTERM"
	}
	return "SIGINT"
}

// exitError carries an exit code other than ExitError through cobra's error return.
// A nil Err means the command already reported everything and only the code matters.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return ""
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// withCode marks an outcome that is not an error in itself (changes present, policy deny).
func withCode(code int, err error) error { return &exitError{code: code, err: err} }

// exitCode maps the error a command returned to the process exit code.
func exitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return ExitError
}
