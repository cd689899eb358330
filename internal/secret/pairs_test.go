package secret

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// The masker's shortcut for text without a secret changes nothing: String is the plain
// replacement of every value, on texts that hold values, parts of them, their first two
// bytes, or none.
func TestMaskerShortcutAsReplacer(t *testing.T) {
	m := NewMasker([]string{"GUESSED-TOKEN"}).With("s3cret", `a"b\c`, "ünïcode", "12345.5", "line one\nline two")
	pairs := make([]string, 0, 2*len(m.values))
	for _, v := range m.values {
		pairs = append(pairs, v, Replacement)
	}
	plain := strings.NewReplacer(pairs...)
	parts := []string{"s3", "s3cret", "cret", `a\"b`, "ün", "ünïcode", "12345.5", "1.23455e+04", "line one", "GU", "GUESSED-TOKEN", "x", " ", "\n", "::"}
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 20000; i++ {
		var b strings.Builder
		for k := rng.IntN(8); k > 0; k-- {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		if got, want := m.String(b.String()), plain.Replace(b.String()); got != want {
			t.Fatalf("String(%q) = %q, want %q", b.String(), got, want)
		}
	}
	if short := (&Masker{values: []string{"x"}}); short.String("axb") != "a"+Replacement+"b" {
		t.Fatalf("a value shorter than two bytes is not masked: %q", short.String("axb"))
	}
}

// EscapedForms' shortcut for plain values gives what the encoders give: for every
// printable ASCII character, alone and in a value, plainForm holds only when every
// form is the value itself.
func TestEscapedFormsPlainShortcut(t *testing.T) {
	for c := byte(0x20); c < 0x7f; c++ {
		for _, v := range []string{string(c), "tok" + string(c) + "en-12"} {
			all := escapedForms(v)
			if plainForm(v) && (len(all) != 1 || all[0] != v) {
				t.Errorf("plainForm(%q) but the encoders give %q", v, all)
			}
			if got := EscapedForms(v); !slices.Equal(got, all) {
				t.Errorf("EscapedForms(%q) = %q, want %q", v, got, all)
			}
		}
	}
}

// The writer's shortcut writes what masking each run of complete lines gives, however
// the text is cut into writes: secrets within a line, split across writes, lines ending
// in LF, CR or CRLF, and partial lines held back until Flush. (A write masks up to its
// last LF, or else its last CR.)
func TestWriterShortcutAsMasking(t *testing.T) {
	m := NewMasker(nil).With("s3cret", "ünïcode", "line one\nline two")
	parts := []string{"s3", "cret", "s3cret", "ünï", "code", "line one", "\n", "\r", "\r\n", "x", "line two", " "}
	rng := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 3000; i++ {
		var got strings.Builder
		w := m.Writer(&got)
		var want, held strings.Builder // the writer as it was: mask each run of whole lines
		for k := rng.IntN(12); k > 0; k-- {
			var p strings.Builder
			for j := rng.IntN(4); j >= 0; j-- {
				p.WriteString(parts[rng.IntN(len(parts))])
			}
			if _, err := w.Write([]byte(p.String())); err != nil {
				t.Fatal(err)
			}
			held.WriteString(p.String())
			s := held.String()
			end := strings.LastIndexByte(s, '\n') // the last LF, else the last CR
			if end < 0 {
				end = strings.LastIndexByte(s, '\r')
			}
			if end >= 0 {
				want.WriteString(m.String(s[:end+1]))
				held.Reset()
				held.WriteString(s[end+1:])
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		want.WriteString(m.String(held.String()))
		if got.String() != want.String() {
			t.Fatalf("writer gave %q, want %q", got.String(), want.String())
		}
	}
}
