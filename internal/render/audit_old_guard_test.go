package render

// The workflow-command checks and CommandGuard as they were before the speed work
// (2469ba4), copied under other names: the reference the differential tests compare against.

import (
	"bytes"
	"io"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

func oldNeutralizeCommands(line string) string {
	if !strings.ContainsAny(line, ":#") {
		return line
	}
	if i := oldLeadingCommand(line); i >= 0 {
		return line[:i] + `\u003a` + oldNeutralizeLegacy(line[i+1:])
	}
	return oldNeutralizeLegacy(line)
}

// oldNeutralizeLegacy escapes the `[` of every `##[` in s: all a command's data needs, where
// a `::` is no command.
func oldNeutralizeLegacy(s string) string {
	j := oldLegacyCommand(s)
	if j < 0 {
		return s
	}
	var b strings.Builder
	for ; j >= 0; j = oldLegacyCommand(s) {
		b.WriteString(s[:j])
		b.WriteString(`\u005b`)
		s = s[j+1:]
	}
	b.WriteString(s)
	return b.String()
}

// oldIsWorkflowCommand reports whether the runner may read line as a workflow command, in
// either form (lenient: any name, oldIgnorable characters skipped).
func oldIsWorkflowCommand(line string) bool {
	return oldLeadingCommand(line) >= 0 || oldLegacyCommand(line) >= 0
}

// oldLeadingCommand is the offset of the first `:` of a `::` that starts line after white
// space, control and oldIgnorable characters and ANSI escape sequences, or -1.
func oldLeadingCommand(line string) int {
	i := oldSkipInvisible(line, 0)
	if i < len(line) && line[i] == ':' {
		if k := oldSkipIgnorable(line, i+1); k < len(line) && line[k] == ':' {
			return i
		}
	}
	return -1
}

// oldLegacyCommand is the offset of the `[` of the first `##[` in s (oldIgnorable characters
// between them skipped), or -1.
func oldLegacyCommand(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] != '#' {
			continue
		}
		j := oldSkipIgnorable(s, i+1)
		if j >= len(s) || s[j] != '#' {
			continue
		}
		if k := oldSkipIgnorable(s, j+1); k < len(s) && s[k] == '[' {
			return k
		}
	}
	return -1
}

// oldSkipInvisible skips what may stand before a command at the start of a line: white
// space, control and oldIgnorable characters, and ANSI CSI sequences (ESC [ … final byte).
func oldSkipInvisible(s string, i int) int {
	for i < len(s) {
		if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && s[j] >= 0x20 && s[j] <= 0x3f {
				j++
			}
			if j < len(s) && s[j] >= 0x40 && s[j] <= 0x7e {
				i = j + 1
				continue
			}
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsSpace(r) && !oldIgnorable(r) {
			return i
		}
		i += size
	}
	return i
}

// oldSkipIgnorable skips characters a culture-sensitive comparison may ignore.
func oldSkipIgnorable(s string, i int) int {
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !oldIgnorable(r) {
			return i
		}
		i += size
	}
	return i
}

// oldIgnorable: controls, format characters (zero-width space and joiners, bidi marks, the
// byte order mark, soft hyphen), combining marks and variation selectors.
func oldIgnorable(r rune) bool {
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Mn, unicode.Me) || unicode.Is(unicode.Variation_Selector, r)
}

// oldGuardCommands wraps w (the process's stdout or stderr) so that nothing written to it
// reaches the runner as a workflow command; Commands is the way for tfgate's own. It
// holds back a partial line until its end (or Flush), like secret.Writer. Safe for
// concurrent use.
func oldGuardCommands(w io.Writer) *oldCommandGuard { return &oldCommandGuard{w: w} }

// oldCommandGuard is the writer oldGuardCommands returns.
type oldCommandGuard struct {
	mu  sync.Mutex
	w   io.Writer
	buf []byte // the current line, not yet written
}

func (g *oldCommandGuard) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	end := bytes.LastIndexAny(p, "\r\n")
	if end < 0 {
		g.buf = append(g.buf, p...)
		return len(p), nil
	}
	var text []byte
	if len(g.buf) > 0 {
		text = append(g.buf, p[:end+1]...)
	} else {
		text = p[:end+1]
	}
	if err := g.oldWriteLines(text); err != nil {
		return 0, err
	}
	g.buf = append(g.buf[:0], p[end+1:]...)
	return len(p), nil
}

// oldWriteLines writes complete lines (text ends with CR or LF), neutralised.
func (g *oldCommandGuard) oldWriteLines(text []byte) error {
	if bytes.IndexByte(text, ':') < 0 && bytes.IndexByte(text, '#') < 0 {
		_, err := g.w.Write(text)
		return err
	}
	var out strings.Builder
	for len(text) > 0 {
		i := bytes.IndexAny(text, "\r\n")
		out.WriteString(oldNeutralizeCommands(string(text[:i])))
		out.WriteByte(text[i])
		text = text[i+1:]
	}
	_, err := io.WriteString(g.w, out.String())
	return err
}

// Flush writes a held-back partial line.
func (g *oldCommandGuard) Flush() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.buf) == 0 {
		return nil
	}
	line := oldNeutralizeCommands(string(g.buf))
	g.buf = g.buf[:0]
	_, err := io.WriteString(g.w, line)
	return err
}
