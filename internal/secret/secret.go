// Package secret masks known secret values in everything tfgate writes.
//
// Redaction by sensitive markers happens where plans are summarised (internal/plan); this
// package is the last line of defence: a writer that replaces literal secret values (from the
// environment or configured masks) before bytes reach a terminal, a log or GitHub.
package secret

import (
	"bytes"
	"encoding/json"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Replacement is what a masked value is shown as.
const Replacement = "(masked)"

// minLen avoids masking short values such as "1" or "true" that would garble output.
const minLen = 6

var secretName = regexp.MustCompile(`(?i)(TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|PRIVATE_KEY|API_KEY|ACCESS_KEY|_KEY$|^TFGATE_PLAN_KEY$)`)

// FromEnv returns the values of environment entries ("NAME=value") whose names look secret.
func FromEnv(environ []string) []string {
	var out []string
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || !secretName.MatchString(name) {
			continue
		}
		out = append(out, value)
	}
	return out
}

// Masker replaces secret values in strings and streams.
type Masker struct {
	values []string // longest first, so a secret containing another is masked whole
}

// NewMasker keeps the values long enough to mask safely.
func NewMasker(values ...[]string) *Masker {
	seen := map[string]bool{}
	m := &Masker{}
	for _, vs := range values {
		for _, v := range vs {
			if len(v) < minLen {
				continue
			}
			// The writer masks line by line: a multi-line secret (a PEM key) written one line
			// at a time is masked line by line too.
			if strings.Contains(v, "\n") {
				for _, line := range strings.Split(v, "\n") {
					if line = strings.TrimSpace(line); len(line) >= minLen && !seen[line] {
						seen[line] = true
						m.values = append(m.values, line)
					}
				}
			}
			// Also the escaped spellings: terraform prints `a"b` as "a\"b" in its messages,
			// and JSON output escapes again.
			for _, form := range EscapedForms(v) {
				if !seen[form] {
					seen[form] = true
					m.values = append(m.values, form)
				}
			}
		}
	}
	sort.Slice(m.values, func(i, j int) bool { return len(m.values[i]) > len(m.values[j]) })
	return m
}

// Values returns the secrets this masker knows (for passing to redaction).
func (m *Masker) Values() []string { return append([]string(nil), m.values...) }

// String masks s.
func (m *Masker) String(s string) string {
	for _, v := range m.values {
		if strings.Contains(s, v) {
			s = strings.ReplaceAll(s, v, Replacement)
		}
	}
	return s
}

// Writer returns a writer that masks secrets before writing to w. It buffers until a newline
// so that a secret split across two Write calls is still caught; Flush writes the rest.
func (m *Masker) Writer(w io.Writer) *Writer { return &Writer{m: m, w: w} }

// Writer is a line-buffered masking writer, safe for concurrent use.
type Writer struct {
	mu  sync.Mutex
	m   *Masker
	w   io.Writer
	buf []byte
}

func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.m.values) == 0 {
		return w.w.Write(p)
	}
	w.buf = append(w.buf, p...)
	i := bytes.LastIndexByte(w.buf, '\n')
	if i < 0 && !bytes.ContainsRune(w.buf, '\r') {
		return len(p), nil
	}
	if i < 0 {
		i = bytes.LastIndexByte(w.buf, '\r')
	}
	out := w.m.String(string(w.buf[:i+1]))
	w.buf = append(w.buf[:0], w.buf[i+1:]...)
	if _, err := io.WriteString(w.w, out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes any buffered partial line.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf) == 0 {
		return nil
	}
	out := w.m.String(string(w.buf))
	w.buf = w.buf[:0]
	_, err := io.WriteString(w.w, out)
	return err
}

// EscapedForms are v and its quoted spellings (Go/HCL and JSON, without the quotes), each
// once more JSON-escaped as they appear inside JSON output.
func EscapedForms(v string) []string {
	forms := []string{v}
	add := func(f string) {
		for _, g := range forms {
			if g == f {
				return
			}
		}
		forms = append(forms, f)
	}
	quoted := strings.Trim(strconv.Quote(v), `"`)
	add(quoted)
	if j, err := json.Marshal(v); err == nil {
		add(strings.Trim(string(j), `"`))
	}
	if j, err := json.Marshal(quoted); err == nil {
		add(strings.Trim(string(j), `"`))
	}
	return forms
}
