//go:build !unix

package terraform

import "os/exec"

func setProcessGroup(*exec.Cmd) {}
