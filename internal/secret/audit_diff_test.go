package secret

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Differential tests of the masker after the speed work (pair set shortcut, uncopied
// writes, plain-value and number shortcuts) against the code before it (audit_old_test.go).

// auditSecrets splits the fuzzer's secrets on 0x1f: the first is guessed (environment),
// the last is learnt later (Writer.Also, Masker.With), the others known.
func auditSecrets(s string) (guessed, known []string, later string) {
	parts := strings.Split(s, "\x1f")
	if len(parts) > 6 {
		parts = parts[:6]
	}
	guessed = parts[:1]
	if len(parts) > 2 {
		known = parts[1 : len(parts)-1]
	}
	if len(parts) > 1 {
		later = parts[len(parts)-1]
	}
	return guessed, known, later
}

// auditText builds a text from the fuzzer's bytes: 0x02 becomes the next spelling the
// masker lists, 0x03 its first half and 0x04 its second half, so that the text holds
// secrets, whole, escaped and cut.
func auditText(raw []byte, values []string) []byte {
	var b []byte
	k := 0
	for _, c := range raw {
		if (c == 2 || c == 3 || c == 4) && len(values) > 0 {
			v := values[k%len(values)]
			switch c {
			case 2:
				b = append(b, v...)
			case 3:
				b = append(b, v[:len(v)/2]...)
			case 4:
				b = append(b, v[len(v)/2:]...)
				k++
			}
			if c == 2 {
				k++
			}
			continue
		}
		b = append(b, c)
	}
	return b
}

// auditWrites cuts text into writes whose lengths the splits give (0 to 16 bytes, cycled;
// a zero-length write too).
func auditWrites(text, splits []byte) [][]byte {
	if len(splits) == 0 {
		return [][]byte{text}
	}
	var out [][]byte
	for i := 0; len(text) > 0; i++ {
		n := min(int(splits[i%len(splits)]%17), len(text))
		out = append(out, text[:n])
		text = text[n:]
		if i > 4*len(text)+64 && n == 0 {
			out = append(out, text)
			break
		}
	}
	return out
}

// checkAgainstOld compares the new masker, writer and forms with the old ones on one input.
func checkAgainstOld(t *testing.T, secrets string, raw, splits []byte, alsoAt int) {
	t.Helper()
	guessed, known, later := auditSecrets(secrets)
	m, om := NewMasker(guessed).With(known...), oldNewMasker(guessed).With(known...)
	if !slices.Equal(m.values, om.values) {
		t.Fatalf("secrets %q: values %q, before %q", secrets, m.values, om.values)
	}
	text := auditText(raw, append(slices.Clone(m.values), later))
	if len(text) > 1<<14 {
		text = text[:1<<14] // (a value's forms can be long: keep the cuts into writes few)
	}
	if got, want := m.String(string(text)), om.String(string(text)); got != want {
		t.Fatalf("String(%q) = %q, before %q (values %q)", text, got, want, m.values)
	}
	var got, want bytes.Buffer
	w, ow := m.Writer(&got), om.Writer(&want)
	for i, p := range auditWrites(text, splits) {
		if i == alsoAt {
			w.Also(later)
			ow.Also(later)
		}
		q := slices.Clone(p)
		n, err := w.Write(q)
		if err != nil || n != len(p) {
			t.Fatalf("Write(%q) = %d, %v", p, n, err)
		}
		if !bytes.Equal(q, p) {
			t.Fatalf("Write changed its argument: %q, was %q", q, p)
		}
		if _, err := ow.Write(p); err != nil {
			t.Fatal(err)
		}
		if got.Len() != want.Len() {
			t.Fatalf("after write %d (%q) of %q: wrote %q, before %q (values %q)", i, p, text, got.String(), want.String(), w.m.values)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := ow.Flush(); err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Fatalf("writes of %q (splits %v): wrote %q, before %q (values %q)", text, splits, got.String(), want.String(), w.m.values)
	}
	for _, v := range strings.Split(secrets, "\x1f") {
		if !slices.Equal(EscapedForms(v), oldEscapedForms(v)) {
			t.Fatalf("EscapedForms(%q) = %q, before %q", v, EscapedForms(v), oldEscapedForms(v))
		}
		if !slices.Equal(NumberForms(v), oldNumberForms(v)) {
			t.Fatalf("NumberForms(%q) = %q, before %q", v, NumberForms(v), oldNumberForms(v))
		}
	}
}

var auditSeeds = []struct {
	secrets string
	text    string
	splits  []byte
}{
	{"GUESSED-TOKEN\x1fs3cret\x1flater-secret", "a \x02 b \x03\x04\n\x02\r\x02\r\n tail \x02", []byte{1}},
	{"ab\x1fxy\x1fq", "ab xy abab\n", []byte{1, 2}},                                      // short values: under the floors
	{"\x1fünïcode\x1f€uro-sign", "\x02\x03|\x04\n\x02", []byte{1, 3, 2}},                 // multibyte first characters
	{"\x1fa\"b\\c<>&\x1fx y/z?", "\x02 \x02 \x02 \x02\n\x02\x02\x02", []byte{2, 5}},      // escaped forms start elsewhere
	{"\x1f3.14159265358979323846\x1f1e21", "\x02,\x02,\x02,\x02\n\x02\x02", []byte{4}},   // number forms
	{"\x1fline one\nline two\x1f", "\x02\n\x03\r\x04\n", []byte{7, 1}},                   // multi-line secret
	{"\x1fsecret-A\x1fsecret-B", "secret-\rA secret-\nB \x02\x02", []byte{0, 1, 2}},      // CR splits
	{"\x1fSeCrEt\x1fstraße", "SECRET secret Secret STRASSE straße\n", []byte{3}},         // Unicode case
	{"\x1f\u200b\u200b::x\x1f##[err", "\x02\n\x02\x02\n", []byte{1}},                     // invisible bytes
	{"\x1f\xff\xfe\xfd\xfc\x1f\xe2\x80", "\x02\x03\x04\xff\xfe\xfd\xfc\n", []byte{1, 1}}, // invalid UTF-8
	{"\x1fabcd\x1fbcde", "abcde bcdea abcd\n", []byte{2}},                                // overlapping values
}

// FuzzMaskerAgainstOld: the masker, writer and forms write what they wrote before the speed
// work, for any secrets, any text (holding them whole, escaped or cut) and any cuts into
// writes, with a secret learnt midway.
func FuzzMaskerAgainstOld(f *testing.F) {
	for i, s := range auditSeeds {
		f.Add(s.secrets, []byte(s.text), s.splits, uint8(i))
	}
	f.Fuzz(func(t *testing.T, secrets string, raw, splits []byte, alsoAt uint8) {
		if len(secrets) > 512 || len(raw) > 4096 {
			return
		}
		checkAgainstOld(t, secrets, raw, splits, int(alsoAt%8))
	})
}

// The seeds, every one cut at every write length.
func TestMaskerAgainstOldSeeds(t *testing.T) {
	for i, s := range auditSeeds {
		for n := byte(0); n < 17; n++ {
			checkAgainstOld(t, s.secrets, []byte(s.text), append(slices.Clone(s.splits), n), i%4)
		}
	}
}

// A secret split across two writes at every offset, alone and after a held-back partial
// line, and with its first two bytes only across a write boundary, is masked.
func TestWriterSecretSplitAtEveryOffset(t *testing.T) {
	for _, secret := range []string{"s3cret-value", "ünïcode-secret", "ab\"cd\\ef", "12345.678"} {
		m := NewMasker(nil).With(secret)
		for _, held := range []string{"", "held back ", "x"} {
			for _, form := range m.values {
				text := held + form + " after\n"
				for i := 0; i <= len(text); i++ {
					for j := i; j <= len(text); j++ {
						var out bytes.Buffer
						w := m.Writer(&out)
						for _, p := range []string{text[:i], text[i:j], text[j:]} {
							if _, err := w.Write([]byte(p)); err != nil {
								t.Fatal(err)
							}
						}
						if err := w.Flush(); err != nil {
							t.Fatal(err)
						}
						if strings.Contains(out.String(), form) || strings.Contains(out.String(), secret) {
							t.Fatalf("%q written as %q, %q, %q: %q", text, text[:i], text[i:j], text[j:], out.String())
						}
					}
				}
			}
		}
	}
}

// One masker and one writer used from many goroutines, while other maskers are derived
// from the masker (With) and the writer learns more secrets (Also): run with -race.
func TestMaskerConcurrentUse(t *testing.T) {
	m := NewMasker([]string{"GUESSED-TOKEN"}).With("s3cret-one")
	var out bytes.Buffer
	w := m.Writer(&out)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				if got := m.String("x s3cret-one GUESSED-TOKEN"); got != "x (masked) (masked)" {
					t.Errorf("String = %q", got)
					return
				}
				m2 := m.With("later-secret")
				if got := m2.String("later-secret s3cret-one"); got != "(masked) (masked)" {
					t.Errorf("With: String = %q", got)
					return
				}
				if _, err := w.Write([]byte("line s3cret-one GUESSED-TOKEN\n")); err != nil {
					t.Error(err)
					return
				}
				if i == 100 {
					w.Also("also-secret")
				}
			}
		}()
	}
	wg.Wait()
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); strings.Contains(s, "s3cret") || strings.Contains(s, "GUESSED") || strings.Count(s, "\n") != 8*200 {
		t.Fatalf("concurrent writes gave %d lines, leaking: %v", strings.Count(s, "\n"), strings.Contains(s, "s3cret"))
	}
}

// failAfter is a writer that fails its writes from the nth on.
type failAfter struct {
	n   int
	out bytes.Buffer
}

func (f *failAfter) Write(p []byte) (int, error) {
	if f.n == 0 {
		return 0, errors.New("broken pipe")
	}
	f.n--
	return f.out.Write(p)
}

// After a failed write the writer holds back what it held before it: the partial line that
// ends the failed write, not the failed write's lines again (which a later write would
// write a second time), as before the speed work.
func TestWriterAfterFailedWrite(t *testing.T) {
	for _, held := range []string{"", "held "} {
		m := NewMasker(nil).With("s3cret")
		got, want := &failAfter{}, &failAfter{}
		w, ow := m.Writer(got), oldNewMasker(nil).With("s3cret").Writer(want)
		for _, p := range []string{held, "one s3cret\ntwo "} {
			_, err := w.Write([]byte(p))
			_, oerr := ow.Write([]byte(p))
			if (err == nil) != (oerr == nil) {
				t.Fatalf("Write(%q): %v, before %v", p, err, oerr)
			}
		}
		got.n, want.n = 10, 10
		if _, err := w.Write([]byte("five\n")); err != nil {
			t.Fatal(err)
		}
		if _, err := ow.Write([]byte("five\n")); err != nil {
			t.Fatal(err)
		}
		if got.out.String() != want.out.String() {
			t.Errorf("held %q: after a failed write, wrote %q, before %q", held, got.out.String(), want.out.String())
		}
	}
}
