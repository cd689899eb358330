package render

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tfgate/tfgate/internal/wfcmd"
)

// Differential tests of CommandGuard and the checks after the speed work (in-place checks,
// ASCII shortcut, kept rooms) against the code before it (audit_old_guard_test.go).

// writeLog records every write it is given: the masker below the guard masks each write's
// lines together, so the writes themselves must be as before, not only their bytes.
type writeLog struct{ writes []string }

func (l *writeLog) Write(p []byte) (int, error) {
	l.writes = append(l.writes, string(p))
	return len(p), nil
}

// guardWrites cuts text into writes of the lengths splits give (0 to 16 bytes, cycled).
func guardWrites(text string, splits []byte) []string {
	if len(splits) == 0 {
		return []string{text}
	}
	var out []string
	for i := 0; len(text) > 0; i++ {
		n := min(int(splits[i%len(splits)]%17), len(text))
		if n == 0 {
			out = append(out, "")
			n = 1
		}
		out = append(out, text[:n])
		text = text[n:]
	}
	return out
}

// checkGuardAgainstOld compares the guard's writes and the checks with the old ones.
func checkGuardAgainstOld(t *testing.T, text string, splits []byte) {
	t.Helper()
	var got, want writeLog
	g, og := GuardCommands(&got), oldGuardCommands(&want)
	for i, p := range guardWrites(text, splits) {
		q := []byte(p)
		if _, err := g.Write(q); err != nil {
			t.Fatal(err)
		}
		if string(q) != p {
			t.Fatalf("Write changed its argument: %q, was %q", q, p)
		}
		if _, err := og.Write([]byte(p)); err != nil {
			t.Fatal(err)
		}
		if i%5 == 4 { // tfgate's own commands between writes
			if _, err := g.Commands().Write([]byte("::notice::x\n")); err != nil {
				t.Fatal(err)
			}
			if _, err := og.w.Write([]byte("::notice::x\n")); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := g.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := og.Flush(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.writes, want.writes) {
		t.Fatalf("guard of %q (splits %v) wrote %q, before %q", text, splits, got.writes, want.writes)
	}
	for _, line := range strings.FieldsFunc(text, func(r rune) bool { return r == '\n' || r == '\r' }) {
		if a, b := NeutralizeCommands(line), oldNeutralizeCommands(line); a != b {
			t.Fatalf("NeutralizeCommands(%q) = %q, before %q", line, a, b)
		}
		if a, b := IsWorkflowCommand(line), oldIsWorkflowCommand(line); a != b {
			t.Fatalf("IsWorkflowCommand(%q) = %v, before %v", line, a, b)
		}
		for i := 0; i <= len(line); i++ {
			if a, b := wfcmd.SkipInvisible(line, i), oldSkipInvisible(line, i); a != b {
				t.Fatalf("wfcmd.SkipInvisible(%q, %d) = %d, before %d", line, i, a, b)
			}
			if a, b := wfcmd.SkipInvisible([]byte(line), i), oldSkipInvisible(line, i); a != b {
				t.Fatalf("wfcmd.SkipInvisible([]byte(%q), %d) = %d, before %d", line, i, a, b)
			}
			if a, b := wfcmd.SkipIgnorable([]byte(line), i), oldSkipIgnorable(line, i); a != b {
				t.Fatalf("wfcmd.SkipIgnorable(%q, %d) = %d, before %d", line, i, a, b)
			}
		}
	}
}

var guardAuditSeeds = []string{
	"::error::x\n",
	" \t\u200b\u200c\u200d\u2060\ufeff::warning::x\r\n",
	"\u0085::x\n\u2028::y\n\u00a0::z\n\u3000::w\n", // NEL, line separator, NBSP, ideographic space
	"\u202e\u2066::bidi\n\u00ad::soft-hyphen\n\u0301::combining\n\ufe0f::vs\n",
	"\x1b[31m::red\x1b[0m\n\x1b[::x\n\x1b]0;t\x07::osc\n\x1b::esc\n",
	"\xff::invalid\n\xc2::x\n\xe2\x80::cut\n\xed\xa0\x80::surrogate\n",
	"a ##[b #\u200b#\u200c[c #\xff#[d\n",
	"text without end ::x",
	"held ##",
	"[x\n::a\r::b\r\n::c\n\n\r\r",
	"fe80::1\n:\u200b:y\n:\u0000:z\n",
	"\x7f::del\n\x00::nul\n\x0b\x0c::vtff\n",
}

// FuzzGuardAgainstOld: the guard writes what it wrote before the speed work, write for
// write, however the text is cut, and the checks answer as before.
func FuzzGuardAgainstOld(f *testing.F) {
	for _, s := range guardAuditSeeds {
		f.Add(s, []byte{1})
		f.Add(s, []byte{3, 0, 7})
	}
	f.Fuzz(func(t *testing.T, text string, splits []byte) {
		if len(text) > 4096 {
			return
		}
		checkGuardAgainstOld(t, text, splits)
	})
}

// The seeds, cut at every write length.
func TestGuardAgainstOldSeeds(t *testing.T) {
	for _, s := range guardAuditSeeds {
		for n := byte(0); n < 17; n++ {
			checkGuardAgainstOld(t, s, []byte{n})
			checkGuardAgainstOld(t, s, []byte{n, 1, 0})
		}
	}
}

// Every invisible character before `::` the ASCII shortcut might pass over: each rune
// below U+3100 and the format characters beyond it, before "::", is neutralised as before.
func TestSkipInvisibleEveryRune(t *testing.T) {
	check := func(r rune) {
		line := string(r) + "::x"
		if a, b := NeutralizeCommands(line), oldNeutralizeCommands(line); a != b {
			t.Fatalf("NeutralizeCommands(%q) = %q, before %q", line, a, b)
		}
		var got bytes.Buffer
		g := GuardCommands(&got)
		g.Write([]byte(line + "\n"))
		if want := oldNeutralizeCommands(line) + "\n"; got.String() != want {
			t.Fatalf("guard of %q = %q, before %q", line, got.String(), want)
		}
	}
	for r := rune(0); r < 0x3100; r++ {
		check(r)
	}
	for _, r := range []rune{0xfeff, 0xfe0f, 0xe0001, 0xe0100, 0x1d173, 0xfff9, utf8.RuneError, 0x10ffff} {
		check(r)
	}
	for b := 0x80; b < 0x100; b++ { // lone bytes of invalid UTF-8
		line := string([]byte{byte(b)}) + "::x"
		if a, b := NeutralizeCommands(line), oldNeutralizeCommands(line); a != b {
			t.Fatalf("NeutralizeCommands(%q) = %q, before %q", line, a, b)
		}
	}
}

// FuzzChunksAsRuneChunks: long values are cut where the rune-slice chunking cut them.
func FuzzChunksAsRuneChunks(f *testing.F) {
	f.Add("a long value with spaces and :: and ##[ in it, cut somewhere", uint8(10))
	f.Add("\xff\xfe🔑→é \u200b::", uint8(0))
	f.Fuzz(func(t *testing.T, s string, n uint8) {
		want := chunkByRunes(s, int(n))
		var got []string
		for _, d := range appendChunks(nil, "", "", s, int(n)) {
			got = append(got, strings.Join(d[:], ""))
		}
		if !slices.Equal(got, want) {
			t.Fatalf("appendChunks(%q, %d) = %q, before %q", s, n, got, want)
		}
	})
}
