//go:build unix

package terraform

import (
	"os/exec"
	"syscall"
)

// setProcessGroup puts terraform in its own process group. A Ctrl-C in the
// terminal then reaches only tfgate, which forwards exactly one SIGINT:
// terraform treats a second interrupt as "abort now" and skips releasing the
// state lock.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}
