// Package secret is tfgate's one masker: it replaces secret values in every string, value and
// stream tfgate writes (terminal, logs, JSON, and later GitHub).
//
// Redaction by sensitive markers happens where plans are summarised (internal/plan). This
// package masks the literal values behind them wherever they appear unmarked — in terraform's
// own error text, in policy messages, in addresses — plus the values of secret-looking
// environment variables. plan, policy and the writers share one Masker per project.
package secret

import (
	"bytes"
	"encoding/json"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Replacement is what a masked value is shown as.
const Replacement = "(masked)"

// Length floors. A value known to be sensitive (terraform marked it, or it is the value of a
// sensitive variable) is masked from MinKnown characters; a value only guessed to be secret
// (an environment variable with a secret-looking name) from MinGuessed, so that "1" or
// "true" in the environment does not garble unrelated text. Shorter known values are still
// redacted wherever terraform marks them.
const (
	MinKnown   = 4
	MinGuessed = 6
)

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

// Masker replaces secret values in strings, structured values and streams. It is immutable:
// With returns a new Masker. A nil *Masker masks nothing.
type Masker struct {
	values []string // every spelling to replace, longest first, so a secret holding another is masked whole
	once   sync.Once
	r      *strings.Replacer
	starts *pairSet // the first two bytes of every value: text without one holds no secret
}

// NewMasker masks guessed secrets (environment heuristics): values of MinGuessed characters
// or more.
func NewMasker(guessed []string) *Masker {
	return (&Masker{}).add(guessed, MinGuessed)
}

// With returns a masker that also masks known secrets: values of MinKnown characters or
// more.
func (m *Masker) With(known ...string) *Masker {
	if m == nil {
		m = &Masker{}
	}
	return m.add(known, MinKnown)
}

func (m *Masker) add(values []string, floor int) *Masker {
	seen := make(map[string]bool, len(m.values)+4*len(values))
	out := &Masker{values: slices.Clone(m.values)}
	for _, v := range out.values {
		seen[v] = true
	}
	keep1 := func(s string) {
		if !seen[s] {
			seen[s] = true
			out.values = append(out.values, s)
		}
	}
	keep := func(s string) {
		keep1(s)
		for _, f := range guardedForms(s) { // as the workflow-command guard above the writer spells s
			keep1(f)
		}
	}
	for _, v := range values {
		if len(v) < floor {
			continue
		}
		// The writer masks line by line: a multi-line secret (a PEM key) written one line
		// at a time is masked line by line too, in every spelling (a YAML block or a JSON
		// string re-encodes each line). Lines are held to the guessed floor: a line such
		// as "null" or "}," of a sensitive document is not itself a secret.
		if strings.Contains(v, "\n") {
			for _, line := range strings.Split(v, "\n") {
				if line = strings.TrimSpace(line); len(line) >= MinGuessed {
					for _, form := range EscapedForms(line) {
						keep(form)
					}
				}
			}
		}
		// Also the escaped spellings: terraform prints `a"b` as "a\"b" in its messages,
		// JSON output escapes again, and a policy may re-encode a value (yaml.marshal,
		// urlquery.encode). A number is also masked as it is spelled once formatted.
		for _, form := range EscapedForms(v) {
			keep(form)
		}
		for _, form := range NumberForms(v) {
			if len(form) >= floor {
				keep(form)
			}
		}
	}
	slices.SortStableFunc(out.values, func(a, b string) int { return len(b) - len(a) })
	return out
}

// Empty reports whether the masker knows no secret.
func (m *Masker) Empty() bool { return m == nil || len(m.values) == 0 }

// String masks s.
func (m *Masker) String(s string) string {
	if m.Empty() || s == "" {
		return s
	}
	m.ready()
	if !anyPairIn(m.starts, s) {
		return s // what Replace returns, without its copy
	}
	return m.r.Replace(s)
}

// ready builds the replacer and the shortcut's set, once.
func (m *Masker) ready() {
	m.once.Do(func() {
		pairs := make([]string, 0, 2*len(m.values))
		for _, v := range m.values {
			pairs = append(pairs, v, Replacement)
		}
		m.r = strings.NewReplacer(pairs...)
		m.starts = newPairSet(m.values)
	})
}

// Value masks every string in a decoded JSON-like value (map keys included) and returns the
// masked copy. A number (json.Number, float64, int) whose spelling holds a secret becomes
// the Replacement string: a policy's metadata may carry a sensitive number. Other values
// are returned as they are.
func (m *Masker) Value(v any) any {
	if m.Empty() {
		return v
	}
	switch v := v.(type) {
	case string:
		return m.String(v)
	case json.Number:
		return m.number(v, string(v))
	case float64:
		return m.number(v, strconv.FormatFloat(v, 'g', -1, 64), strconv.FormatFloat(v, 'f', -1, 64))
	case int:
		return m.number(v, strconv.Itoa(v))
	case int64:
		return m.number(v, strconv.FormatInt(v, 10))
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[m.String(k)] = m.Value(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = m.Value(e)
		}
		return out
	default:
		return v
	}
}

// number is v, or Replacement when one of its spellings holds a secret.
func (m *Masker) number(v any, spellings ...string) any {
	for _, s := range spellings {
		if m.String(s) != s {
			return Replacement
		}
	}
	return v
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
	if w.m.Empty() {
		return w.w.Write(p)
	}
	text := p // the text to mask: what is held back, then p; p alone when nothing is
	if len(w.buf) > 0 {
		w.buf = append(w.buf, p...)
		text = w.buf
	}
	i := bytes.LastIndexByte(text, '\n')
	if i < 0 {
		i = bytes.LastIndexByte(text, '\r')
	}
	if i < 0 {
		if len(w.buf) == 0 {
			w.buf = append(w.buf, p...)
		}
		return len(p), nil
	}
	err := w.write(text[:i+1])
	w.buf = append(w.buf[:0], text[i+1:]...) // also after an error, as before: the lines are gone
	if err != nil {
		return 0, err
	}
	return len(p), nil
}

// write writes text masked; text holding none of the masker's values (nearly all) is
// written as it is, uncopied.
func (w *Writer) write(text []byte) error {
	w.m.ready()
	if !anyPairIn(w.m.starts, text) {
		_, err := w.w.Write(text)
		return err
	}
	_, err := io.WriteString(w.w, w.m.String(string(text)))
	return err
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

// Also makes the writer mask more known secrets from now on (a secret learnt from a flag,
// after the writer was made).
func (w *Writer) Also(known ...string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.m = w.m.With(known...)
}
