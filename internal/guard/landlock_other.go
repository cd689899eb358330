//go:build !linux

package guard

import (
	"errors"
	"os/exec"
	"runtime"
)

// errNotLinux is why the guard is never available off Linux: Landlock is Linux's.
var errNotLinux = errors.New("no Landlock on " + runtime.GOOS + ": it is Linux's")

// Available reports why the guard cannot be set up here: it is not Linux.
func Available() (abi int, err error) {
	return 0, errNotLinux
}

// confine cannot restrict anything here, so it never executes the target.
func confine(paths, readOnly []string, target string, argv, env []string) error {
	return errNotLinux
}

// startConfined cannot restrict anything here, so it never starts cmd.
func startConfined(paths, readOnly []string, cmd *exec.Cmd) error {
	return errNotLinux
}

// sealSelf has nothing to seal here: no guarded process starts.
func sealSelf() error {
	return errNotLinux
}
