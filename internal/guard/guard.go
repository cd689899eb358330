// Package guard keeps a process, and every process it starts, from reaching denied
// directories (the repository's checkout and its git directory) by any path, and from
// changing read-only ones (the shared provider cache): a guard enforced by the kernel
// (Linux's Landlock), for terraform, its providers and whatever they run. The rest of the
// machine stays as usable as before, with one consequence callers must plan for: a new
// entry directly inside a denied or read-only directory's ancestor (a new file in /tmp when
// the checkout is under /tmp, in $HOME when it or the cache is under $HOME) cannot be
// created or reached, so the guarded process needs a TMPDIR (and a HOME, if it writes
// there) inside a directory it may use.
//
// Landlock can only allow, so the rule set is "everything but the denied directories": for
// each ancestor of a denied or read-only directory, every entry beside the path down to it
// is allowed in full (every right the kernel's Landlock handles, of those this package
// knows: up to ABI 8, which leaves ABI 9's connecting to unix sockets by path ungoverned),
// each read-only directory is allowed reading, listing and executing, and paths in
// Spec.Allow are allowed even below a denied directory. No ancestor is ever allowed, nor an
// entry that is a link into a denied or read-only directory or onto an ancestor. Landlock does not govern
// looking a path up, so what a denied directory holds can still be named and stat'ed (its
// names, sizes, times: terraform's fileexists), never read, listed, written or run. The
// guard cannot tell another mount of a denied directory (a bind mount elsewhere) from any
// other directory.
//
// Landlock restricts the thread that asks and what it executes, so the guard is a re-exec:
// Wrap says to start this very binary with a variable in its environment; this package's
// init finds the variable, restricts its thread and executes the target in its place. It
// never runs the target unguarded: any failure exits with ExitCode and says why on stderr.
// Every binary that links this package can be the wrapper (tfgate, its test binaries).
package guard

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
)

// envVar carries a guarded start's request from Wrap to the re-executed binary's init.
const envVar = "TFGATE_READ_GUARD"

// ExitCode is a guarded start's exit status when the guard could not be set up, in which
// case the target never ran (the shells' "found but cannot be run").
const ExitCode = 126

// Spec is what a guarded process may not reach, and what it may even so.
type Spec struct {
	// Deny are absolute paths of directories the process cannot reach, by any path: a
	// relative one, a link, /proc/<pid>/cwd.
	Deny []string
	// Allow are absolute paths the process may use in full though they lie below a denied
	// directory (the tree terraform runs in, the plan's output directory). None may hold
	// a denied directory.
	Allow []string
	// ReadOnly are absolute paths of directories the process may read, list and execute
	// from, and never change: no file in them written, created, renamed over or removed
	// (the shared provider cache, which tfgate alone adds to). None may lie inside an
	// allowed path or hold a denied directory.
	ReadOnly []string
}

// request is what Wrap hands the re-executed binary: the spec, resolved, and the program
// to execute once guarded.
type request struct {
	Deny     []string `json:"deny"`
	Allow    []string `json:"allow"`
	ReadOnly []string `json:"read_only"`
	Target   string   `json:"target"`
}

// Wrap says how to start target guarded by spec: start path (this binary) instead of
// target, with target's arguments, and with env added to the environment. target, an
// absolute path, is allowed (it must be executable once guarded). Wrap fails when the
// guard is not available here or the spec is not one it can enforce.
func Wrap(spec Spec, target string) (path string, env []string, err error) {
	if _, err := Available(); err != nil {
		return "", nil, err
	}
	if err := sealSelf(); err != nil {
		return "", nil, err
	}
	req, err := resolve(request{Deny: spec.Deny, Allow: spec.Allow, ReadOnly: spec.ReadOnly, Target: target})
	if err != nil {
		return "", nil, err
	}
	self, err := os.Executable()
	if err != nil {
		return "", nil, fmt.Errorf("read guard: %w", err)
	}
	data, err := json.Marshal(req)
	if err != nil {
		return "", nil, err
	}
	return self, []string{envVar + "=" + string(data)}, nil
}

// Start starts cmd, whose Path is the target (an absolute path), guarded by spec, as
// Wrap's re-exec would but without it: the rules are made here, at the start, and a thread
// of this process restricted by them starts cmd (no second start of this binary, a few
// milliseconds each). It fails, and cmd never starts, when the guard cannot be set up.
// Wait for cmd as for any other; the rest of this process stays unrestricted.
func Start(spec Spec, cmd *exec.Cmd) error {
	if _, err := Available(); err != nil {
		return err
	}
	if err := sealSelf(); err != nil {
		return err
	}
	req, err := resolve(request{Deny: spec.Deny, Allow: spec.Allow, ReadOnly: spec.ReadOnly, Target: cmd.Path})
	if err != nil {
		return fmt.Errorf("read guard: %w", err)
	}
	paths, err := rulePaths(req)
	if err != nil {
		return fmt.Errorf("read guard: %w", err)
	}
	return startConfined(paths, req.ReadOnly, cmd)
}

// init is the wrapper's half of Wrap: when the variable is set, this process exists only
// to execute the target guarded, before the program's own work starts. It is a read of the
// environment outside cli, and reads no setting of tfgate's: the variable is Wrap's message
// to the process its caller starts, removed before the target runs.
func init() {
	spec, ok := os.LookupEnv(envVar)
	if !ok {
		return
	}
	err := enter(spec, os.Args[1:])
	fmt.Fprintf(os.Stderr, "tfgate: read guard: %v\n", err)
	os.Exit(ExitCode)
}

// enter executes the target of spec, guarded, with args; it returns only on failure.
func enter(spec string, args []string) error {
	if err := os.Unsetenv(envVar); err != nil {
		return err
	}
	var req request
	if err := json.Unmarshal([]byte(spec), &req); err != nil {
		return fmt.Errorf("%s: %w", envVar, err)
	}
	req, err := resolve(req)
	if err != nil {
		return err
	}
	paths, err := rulePaths(req)
	if err != nil {
		return err
	}
	return confine(paths, req.ReadOnly, req.Target, append([]string{req.Target}, args...), os.Environ())
}
