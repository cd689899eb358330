package render

import (
	"bytes"
	"io"
	"strings"
	"sync"

	"github.com/tfgate/tfgate/internal/wfcmd"
)

// Workflow commands. The GitHub Actions runner reads every line a step prints on stdout
// or stderr (a line ends at LF, CR or CRLF, as .NET's ReadLine splits) and obeys:
//
//   - `::name props::data` when the line, after leading white space, starts with `::`
//     (ActionCommand.TryParseV2);
//   - `##[name props]data` anywhere in the line (ActionCommand.TryParse, the legacy form);
//     the log viewer also draws `##[error]`, `##[group]`… lines as such.
//
// Command names are matched case-insensitively, and `::stop-commands::TOKEN` switches off
// every later command — tfgate's own annotations too — until `::TOKEN::`. The runner
// compares with .NET's culture-sensitive StartsWith and IndexOf, which may skip
// zero-width and other ignorable characters, so the checks (internal/wfcmd) skip them too.
//
// tfgate prints text from the repository and the plan (project names, paths, addresses,
// values, terraform's and policies' messages, errors) on both streams. Rather than trust
// every place that composes a line, CommandGuard sits between tfgate and the process's
// stdout and stderr and neutralises every line that the runner would read as a command;
// tfgate's own commands (annotations, the stop-commands fence) take the one way past it,
// CommandGuard.Commands, and are built by WorkflowCommand with their untrusted parts
// escaped by the runner's rules.
//
// A neutralised line keeps its text, with the character that makes it a command written
// as a \u escape: the first `:` of a leading `::` as `\u003a`, the `[` of every `##[` as
// `\u005b`. It reads as the Go-style escapes clean shows on a terminal, and it is a valid
// JSON escape of the same character, so a JSON output (where "##[" can only stand inside
// a string, and no line starts with "::") still decodes to the very same values.

// NeutralizeCommands returns line (one line, without its end) so that the runner reads no
// workflow command in it. A line that holds none is returned unchanged.
func NeutralizeCommands(line string) string {
	if !strings.ContainsAny(line, ":#") {
		return line
	}
	if i := wfcmd.Leading(line); i >= 0 {
		return line[:i] + `\u003a` + wfcmd.NeutralizeLegacy(line[i+1:])
	}
	return wfcmd.NeutralizeLegacy(line)
}

// IsWorkflowCommand reports whether the runner may read line as a workflow command, in
// either form (lenient: any name, ignorable characters skipped).
func IsWorkflowCommand(line string) bool {
	return wfcmd.Leading(line) >= 0 || wfcmd.Legacy(line) >= 0
}

// GuardCommands wraps w (the process's stdout or stderr) so that nothing written to it
// reaches the runner as a workflow command; Commands is the way for tfgate's own. It
// holds back a partial line until its end (or Flush), like secret.Writer. Safe for
// concurrent use.
func GuardCommands(w io.Writer) *CommandGuard { return &CommandGuard{w: w} }

// CommandGuard is the writer GuardCommands returns.
type CommandGuard struct {
	mu  sync.Mutex
	w   io.Writer
	buf []byte // the current line, not yet written
	out []byte // room for the neutralised text of one Write, kept between writes
}

func (g *CommandGuard) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	end := bytes.LastIndexAny(p, "\r\n")
	if end < 0 {
		g.buf = append(g.buf, p...)
		return len(p), nil
	}
	text, held := p[:end+1], len(g.buf)
	if held > 0 {
		// One write still: the masker below masks each write's lines together.
		g.buf = append(g.buf, text...) // g.buf keeps the room for the next time
		text = g.buf
	}
	if err := g.writeLines(text); err != nil {
		g.buf = g.buf[:held] // as before the write: its lines are not held back
		return 0, err
	}
	g.buf = append(g.buf[:0], p[end+1:]...)
	return len(p), nil
}

// maxKeptOut bounds the room a guard keeps between writes.
const maxKeptOut = 1 << 20

// writeLines writes complete lines (text ends with CR or LF), neutralised, in one write.
// The lines holding no command, nearly all, are written as they are, uncopied.
func (g *CommandGuard) writeLines(text []byte) error {
	out := g.out[:0]
	copied := 0 // text[:copied] is in out
	for start := 0; start < len(text); {
		end := start + lineEnd(text[start:])
		line := text[start:end]
		if lead, legacy := commandsIn(line); lead >= 0 || legacy >= 0 {
			out = append(out, text[copied:start]...)
			out = appendNeutralized(out, line, lead)
			copied = end
		}
		start = end + 1
	}
	if copied == 0 {
		if len(text) == 0 {
			return nil
		}
		_, err := g.w.Write(text)
		return err
	}
	out = append(out, text[copied:]...)
	if cap(out) <= maxKeptOut {
		g.out = out
	}
	_, err := g.w.Write(out)
	return err
}

// lineEnd is the offset of the first CR or LF in text, which holds one.
func lineEnd(text []byte) int {
	i := bytes.IndexByte(text, '\n')
	if i < 0 {
		i = len(text)
	}
	if j := bytes.IndexByte(text[:i], '\r'); j >= 0 {
		return j
	}
	return i
}

// commandsIn is leadingCommand and legacyCommand of line, or -1 each without looking
// when no byte of line could start one.
func commandsIn(line []byte) (lead, legacy int) {
	lead, legacy = -1, -1
	if bytes.IndexByte(line, ':') >= 0 {
		lead = wfcmd.Leading(line)
	}
	if bytes.IndexByte(line, '#') >= 0 {
		legacy = wfcmd.Legacy(line)
	}
	return lead, legacy
}

// appendNeutralized appends NeutralizeCommands(line) to out, lead being
// wfcmd.Leading(line).
func appendNeutralized(out, line []byte, lead int) []byte {
	if lead >= 0 {
		out = append(out, line[:lead]...)
		out = append(out, `\u003a`...)
		line = line[lead+1:]
	}
	for j := wfcmd.Legacy(line); j >= 0; j = wfcmd.Legacy(line) {
		out = append(out, line[:j]...)
		out = append(out, `\u005b`...)
		line = line[j+1:]
	}
	return append(out, line...)
}

// Flush writes a held-back partial line.
func (g *CommandGuard) Flush() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.buf) == 0 {
		return nil
	}
	line := NeutralizeCommands(string(g.buf))
	g.buf = g.buf[:0]
	_, err := io.WriteString(g.w, line)
	return err
}

// Unwrap is the writer the guard writes to.
func (g *CommandGuard) Unwrap() io.Writer { return g.w }

// Commands is where tfgate writes its own workflow commands, whole lines built by
// WorkflowCommand or as constant as the stop-commands fence: they pass unchanged. A
// partial line held back stays so, after them.
func (g *CommandGuard) Commands() io.Writer { return commandWriter{g} }

type commandWriter struct{ g *CommandGuard }

func (c commandWriter) Write(p []byte) (int, error) {
	c.g.mu.Lock()
	defer c.g.mu.Unlock()
	return c.g.w.Write(p)
}

// Commands is w's way for tfgate's own workflow commands: CommandGuard.Commands when w is
// guarded, else w itself.
func Commands(w io.Writer) io.Writer {
	if g, ok := w.(*CommandGuard); ok {
		return g.Commands()
	}
	return w
}
