package terraform

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/tfgate/tfgate/internal/tffiles"
)

// DefaultGracePeriod is how long terraform may take to stop after it has been
// sent SIGINT before it is killed. Terraform uses that time to finish the
// provider call in flight, write state and release the state lock; killing it
// straight away can leave a lock that a human must force-unlock. A large plan can take
// half a minute to stop; a second Ctrl-C makes tfgate itself exit sooner (see cli).
const DefaultGracePeriod = 5 * time.Minute

// stderrTailBytes bounds the terraform output kept for error messages: the
// diagnostics that explain a failure are at the end, and a PR comment or a
// terminal has no use for megabytes of log.
const stderrTailBytes = 8 << 10

// CommandError is a terraform command that failed. Stderr holds the end of
// what terraform printed on stderr, with colour codes removed.
type CommandError struct {
	Command string // e.g. "terraform init"
	Dir     string // the project directory, as given to NewRunner (or its Name)
	Stderr  string
	Err     error // the exec or tfexec error
	Ctx     error // context.Canceled or DeadlineExceeded when terraform was interrupted
}

func (e *CommandError) Error() string {
	reason := firstLine(stripANSI(errorText(e.Err)))
	if e.Ctx != nil {
		reason = fmt.Sprintf("interrupted (%v): %s", e.Ctx, reason)
		if strings.Contains(reason, "killed") {
			bin := e.Program()
			reason += "; " + bin + " did not stop in time and was killed: if its state is locked, run `" + bin + " force-unlock` in " + e.Dir
		}
	}
	msg := fmt.Sprintf("%s in %s: %s", e.Command, e.Dir, reason)
	if e.Stderr != "" {
		msg += "\n" + redactVarFileSnippets(e.Stderr)
	}
	return msg
}

// Program is the flavour the command ran, "terraform" or "tofu": what a message tells the
// user to run.
func (e *CommandError) Program() string {
	if bin, _, _ := strings.Cut(e.Command, " "); bin != "" {
		return bin
	}
	return FlavorTerraform
}

// Unwrap lets errors.Is see both the command error and the context error.
func (e *CommandError) Unwrap() []error {
	if e.Ctx != nil {
		return []error{e.Err, e.Ctx}
	}
	return []error{e.Err}
}

// command builds a subprocess that is interrupted, not killed, when ctx ends.
// It mirrors what tfexec does for its own commands so that every terraform
// process tfgate starts stops the same way.
func command(ctx context.Context, path, dir string, env []string, grace time.Duration, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = grace
	setProcessGroup(cmd)
	return cmd
}

// ansiRE matches CSI escape sequences (colours, cursor movement). Terraform is
// always run with -no-color, but providers and wrappers may still emit them.
var ansiRE = regexp.MustCompile(`\x1b\[[0-9;?]*[ -/]*[@-~]`)

func stripANSI(s string) string { return ansiRE.ReplaceAllString(s, "") }

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return strings.TrimSpace(s[:i])
	}
	return s
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu        sync.Mutex
	buf       []byte
	max       int
	truncated bool
}

func newTailBuffer(max int) *tailBuffer { return &tailBuffer{max: max} }

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	// Trim only when well over the limit so that a stream of small writes
	// does not copy the buffer on every call.
	if len(t.buf) > 2*t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
		t.truncated = true
	}
	return len(p), nil
}

func (t *tailBuffer) Reset() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf, t.truncated = t.buf[:0], false
}

// String returns the kept output without colour codes, cut at a line start
// when it had to be truncated.
func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b, cut := t.buf, t.truncated
	if len(b) > t.max {
		b, cut = b[len(b)-t.max:], true
	}
	if cut {
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:]
		}
	}
	s := strings.TrimSpace(stripANSI(string(b)))
	if cut && s != "" {
		s = "…\n" + s
	}
	return s
}

// syncWriter serialises writes: tfexec copies stdout and stderr to the log in
// two goroutines, and the caller's writer need not be safe for that.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// varFileSource matches the line of a diagnostic whose source is not a configuration file —
// a var file, whatever its name (`  on secret.tfvars line 1:`, `on prod.vars line 3:`).
var varFileSource = regexp.MustCompile(`^\s*on (\S+) line \d+`)

// sourceLine matches a quoted source line of a diagnostic: `   1: pw = "…"`.
var sourceLine = regexp.MustCompile(`^\s*\d+: `)

// redactVarFileSnippets removes the source lines terraform quotes from var files in its
// diagnostics: var files hold secrets, and a syntax error in one would otherwise print the
// secret into a terminal, a CI log or a pull request.
func redactVarFileSnippets(stderr string) string {
	lines := strings.Split(stderr, "\n")
	out := lines[:0]
	inVarFile := false
	for _, l := range lines {
		switch {
		case varFileSource.MatchString(l):
			file := varFileSource.FindStringSubmatch(l)[1]
			inVarFile = !tffiles.IsConfig(file)
		case inVarFile && sourceLine.MatchString(l):
			out = append(out, sourceLine.FindString(l)+"(line from a var file hidden: it may hold secrets)")
			continue
		case strings.TrimSpace(l) == "" || !strings.HasPrefix(l, " "):
			inVarFile = false
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// errorText is err's message. tfexec's error type panics on Error() when it wraps no
// error (a command cancelled right after it started), so that case is caught here.
func errorText(err error) (text string) {
	if err == nil {
		return "no error reported"
	}
	defer func() {
		if recover() != nil {
			text = "cancelled"
		}
	}()
	return err.Error()
}
