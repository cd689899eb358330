package git

import (
	"context"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"time"
)

// stopGrace is how long a git process told to stop (SIGTERM) has before it is killed.
const stopGrace = 5 * time.Second

// command is every git process tfgate starts: git with args in dir, the environment plus
// env. Two things keep tfgate from ever leaving the repository locked:
//
//   - GIT_OPTIONAL_LOCKS=0: git status does not write the index it refreshed (tfgate only
//     reads the repository; git diff writes it all the same, with a lock it takes only if
//     free);
//   - a cancelled query (a run ending early, a query whose sibling failed) is stopped with
//     SIGTERM, on which git removes the lock files it holds (.git/index.lock, taken by git
//     diff to write back a refreshed index), not SIGKILL, which leaves them behind: the
//     user's next git command would fail with "index.lock: File exists" until it is
//     removed by hand. A git that does not stop within stopGrace is killed.
//
// A credential prompt would hang a CI job forever: GIT_TERMINAL_PROMPT=0 makes it fail.
func command(ctx context.Context, dir string, env []string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0"), env...)
	cmd.Cancel = func() error {
		if runtime.GOOS == "windows" {
			return cmd.Process.Kill()
		}
		return cmd.Process.Signal(syscall.SIGTERM)
	}
	cmd.WaitDelay = stopGrace
	return cmd
}
