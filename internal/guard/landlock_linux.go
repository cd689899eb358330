package guard

import (
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// fileRights are the rights a rule on anything but a directory may grant (the kernel
// refuses a rule on a file that grants a right only directories have).
const fileRights = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE |
	unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_TRUNCATE | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV

// Available reports the Landlock ABI version of the running kernel, or why the guard
// cannot be set up here: a kernel built without Landlock, or with Landlock left out of the
// security modules it started (the lsm= boot parameter), or a sandbox (a container's
// seccomp profile) refusing the call.
func Available() (abi int, err error) {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	switch {
	case errno == 0:
		return int(v), nil
	case errno == unix.ENOSYS:
		return 0, errors.New("this Linux kernel has no Landlock (5.13 or later, built with CONFIG_SECURITY_LANDLOCK)")
	case errno == unix.EOPNOTSUPP:
		return 0, errors.New("this Linux kernel has Landlock off (add landlock to its lsm= boot parameter)")
	default:
		return 0, fmt.Errorf("landlock_create_ruleset: %w", errno)
	}
}

// handledRights are the filesystem rights Landlock of ABI abi governs, of those this
// package knows: every one of them is denied in a denied directory.
func handledRights(abi int) uint64 {
	rights := uint64(unix.LANDLOCK_ACCESS_FS_MAKE_SYM<<1 - 1) // ABI 1: execute … make_sym
	if abi >= 2 {
		rights |= unix.LANDLOCK_ACCESS_FS_REFER
	}
	if abi >= 3 {
		rights |= unix.LANDLOCK_ACCESS_FS_TRUNCATE
	}
	if abi >= 5 {
		rights |= unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	}
	return rights
}

// readRights are what a read-only directory grants: reading its files, listing its
// directories, executing its programs.
const readRights = unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR | unix.LANDLOCK_ACCESS_FS_EXECUTE

// confine restricts this thread to paths, in full, and readOnly, to read, and executes
// target in this process's place. It runs on the one thread it locks, which the
// restriction applies to and which executes target; it returns only on failure.
func confine(paths, readOnly []string, target string, argv, env []string) error {
	runtime.LockOSThread() // never unlocked: the thread executes target, or the process exits
	if err := restrictThread(paths, readOnly); err != nil {
		return err
	}
	if err := syscall.Exec(target, argv, env); err != nil {
		return fmt.Errorf("%s: %w", target, err)
	}
	return nil
}

// restrictThread restricts the calling thread, which must be locked to its goroutine (and
// stay so), to paths, in full, and readOnly, to read: it and every process it starts.
func restrictThread(paths, readOnly []string) error {
	abi, err := Available()
	if err != nil {
		return err
	}
	rights := handledRights(abi)
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	attr := unix.LandlockRulesetAttr{Handled_access_fs: rights}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if errno != 0 {
		return fmt.Errorf("landlock_create_ruleset: %w", errno)
	}
	ruleset := int(fd)
	defer unix.Close(ruleset)
	for _, p := range paths {
		if err := addRule(ruleset, p, rights); err != nil {
			return err
		}
	}
	for _, p := range readOnly {
		if err := addRule(ruleset, p, rights&readRights); err != nil {
			return err
		}
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, fd, 0, 0); errno != 0 {
		return fmt.Errorf("landlock_restrict_self: %w", errno)
	}
	return nil
}

// startConfined starts cmd from a thread of its own restricted to paths and readOnly: the
// process inherits the restriction at fork. The thread ends with its goroutine, locked
// (Go then terminates it rather than reuse it; the main thread it wedges, never to run Go
// code again), and the Go runtime never clones a new thread from a locked one (it asks its
// template thread), so the restriction reaches no code of this process that runs later.
// Such a thread shares the domain of the process it started, which may thus reach it as
// a tracer would: Start makes this process not dumpable first (sealSelf).
func startConfined(paths, readOnly []string, cmd *exec.Cmd) error {
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: see above
		if err := restrictThread(paths, readOnly); err != nil {
			done <- fmt.Errorf("read guard: %w", err)
			return
		}
		done <- cmd.Start()
	}()
	return <-done
}

// sealSelf makes this process not dumpable, for good: a process of the same user without
// CAP_SYS_PTRACE can no longer open its /proc/<pid>/environ (tfgate's environment as it
// started, the plan key and the token among it), mem, maps or fds, nor ptrace it. Landlock
// alone does not keep a guarded process from them: it leaves /proc/<pid>/environ of an
// unrestricted process readable, and a thread Start restricted is in the very domain of the
// process it starts, so that process may open the whole address space through it
// (/proc/<pid>/mem of the main thread, which the Go runtime wedges, restricted, rather than
// end, when the starting goroutine ran there). What terraform executes is dumpable again.
func sealSelf() error {
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("read guard: not dumpable: %w", err)
	}
	return nil
}

// addRule allows path rights if it is a directory, those of them a file can have if not. A path gone since it was listed (a temporary file) needs no rule.
func addRule(ruleset int, path string, rights uint64) error {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ENOENT) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		rights &= fileRights
	}
	attr := unix.LandlockPathBeneathAttr{Allowed_access: rights, Parent_fd: int32(fd)}
	_, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(ruleset), unix.LANDLOCK_RULE_PATH_BENEATH, uintptr(unsafe.Pointer(&attr)), 0, 0, 0)
	if errno != 0 {
		return fmt.Errorf("landlock_add_rule %s: %w", path, errno)
	}
	return nil
}
