package secret

// The masker, masking writer and forms as they were before the speed work (2469ba4),
// copied under other names: the reference the differential tests compare against.

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
)

type oldMasker struct {
	values []string
	once   sync.Once
	r      *strings.Replacer
}

func oldNewMasker(guessed []string) *oldMasker {
	return (&oldMasker{}).add(guessed, MinGuessed)
}

func (m *oldMasker) With(known ...string) *oldMasker {
	if m == nil {
		m = &oldMasker{}
	}
	return m.add(known, MinKnown)
}

func (m *oldMasker) add(values []string, floor int) *oldMasker {
	seen := make(map[string]bool, len(m.values)+4*len(values))
	out := &oldMasker{values: slices.Clone(m.values)}
	for _, v := range out.values {
		seen[v] = true
	}
	keep := func(s string) {
		// (With this audit's fix: the spellings the workflow-command guard gives.)
		for _, f := range append([]string{s}, guardedForms(s)...) {
			if !seen[f] {
				seen[f] = true
				out.values = append(out.values, f)
			}
		}
	}
	for _, v := range values {
		if len(v) < floor {
			continue
		}
		if strings.Contains(v, "\n") {
			for _, line := range strings.Split(v, "\n") {
				if line = strings.TrimSpace(line); len(line) >= MinGuessed {
					for _, form := range oldEscapedForms(line) {
						keep(form)
					}
				}
			}
		}
		for _, form := range oldEscapedForms(v) {
			keep(form)
		}
		for _, form := range oldNumberForms(v) {
			if len(form) >= floor {
				keep(form)
			}
		}
	}
	slices.SortStableFunc(out.values, func(a, b string) int { return len(b) - len(a) })
	return out
}

func (m *oldMasker) Empty() bool { return m == nil || len(m.values) == 0 }

func (m *oldMasker) String(s string) string {
	if m.Empty() || s == "" {
		return s
	}
	m.once.Do(func() {
		pairs := make([]string, 0, 2*len(m.values))
		for _, v := range m.values {
			pairs = append(pairs, v, Replacement)
		}
		m.r = strings.NewReplacer(pairs...)
	})
	return m.r.Replace(s)
}

func (m *oldMasker) Writer(w io.Writer) *oldWriter { return &oldWriter{m: m, w: w} }

type oldWriter struct {
	mu  sync.Mutex
	m   *oldMasker
	w   io.Writer
	buf []byte
}

func (w *oldWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.m.Empty() {
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

func (w *oldWriter) Flush() error {
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

func (w *oldWriter) Also(known ...string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.m = w.m.With(known...)
}

// oldEscapedForms is EscapedForms at 2469ba4 (every encoder, no shortcut). The encoders it
// calls are unchanged since.
func oldEscapedForms(v string) []string {
	forms := []string{v}
	add := func(f string) {
		if f != "" && !slices.Contains(forms, f) {
			forms = append(forms, f)
		}
	}
	add(unquote(strconv.Quote(v)))
	add(unquote(strconv.QuoteToASCII(v)))
	add(jsonString(v, true))
	add(jsonString(v, false))
	add(yamlDoubleQuoted(v))
	add(url.QueryEscape(v))
	add(url.PathEscape(v))
	add(byteEscapes(v, "\\x%02x"))
	add(byteEscapes(v, "\\x%02X"))
	for _, f := range slices.Clone(forms) {
		add(jsonString(f, true))
		add(jsonString(f, false))
	}
	return forms
}

// oldNumberForms is NumberForms at 2469ba4 (the pattern tried on every value).
func oldNumberForms(v string) []string {
	if !jsonNumber.MatchString(v) {
		return nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsInf(f, 0) {
		return nil
	}
	var forms []string
	add := func(s string) {
		if s != v && !slices.Contains(forms, s) {
			forms = append(forms, s)
		}
	}
	add(strconv.FormatFloat(f, 'g', -1, 64))
	add(strconv.FormatFloat(f, 'e', -1, 64))
	add(strconv.FormatFloat(f, 'E', -1, 64))
	add(strconv.FormatFloat(f, 'f', -1, 64))
	add(fmt.Sprint(f))
	if f == math.Trunc(f) && math.Abs(f) < 1<<63 {
		add(strconv.FormatInt(int64(f), 10))
	}
	return forms
}
