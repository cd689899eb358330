package render

import (
	"bytes"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/tfgate/tfgate/internal/wfcmd"
)

// The checks' ASCII shortcut agrees with the Unicode tables it stands for.
func TestIgnorableASCII(t *testing.T) {
	for r := rune(0); r < utf8.RuneSelf; r++ {
		want := unicode.In(r, unicode.Cc, unicode.Cf, unicode.Mn, unicode.Me) || unicode.Is(unicode.Variation_Selector, r)
		if wfcmd.Ignorable(r) != want {
			t.Errorf("wfcmd.Ignorable(%q) = %v, want %v", r, !want, want)
		}
	}
}

// The guard reads bytes as NeutralizeCommands reads strings, line for line, the line
// ends (LF, CR, CRLF) kept: hostile lines among plain ones, invalid UTF-8 included.
func TestCommandGuardLineByLine(t *testing.T) {
	lines := []string{
		"  + terraform_data.r[0]  input.name: \"r0\"",
		"::error::forged", "  \u200b::warning::w", "\x1b[1m::x", "a ##[error]b ##[c", "#\u200d#[x]",
		"fe80::1", "\xff\xfe::bad utf-8", "\xff::x", ":\xcc\x81:y", "#\xe2\x80", "", "plain",
	}
	ends := []string{"\n", "\r", "\r\n"}
	var in, want strings.Builder
	for i := 0; i < 200; i++ {
		l, end := lines[i%len(lines)], ends[i%len(ends)]
		in.WriteString(l + end)
		want.WriteString(NeutralizeCommands(l) + end)
	}
	for _, size := range []int{1, 3, 64, 4096, in.Len()} {
		if got := guardAll(in.String(), size); got != want.String() {
			t.Errorf("writes of %d bytes:\n%q\nwant\n%q", size, got, want.String())
		}
	}
	var out bytes.Buffer
	g := GuardCommands(&out)
	for i := 0; i < 3; i++ { // the room kept between writes holds nothing of the last
		g.Write([]byte("::a\nplain\n"))
	}
	if want := strings.Repeat(`\u003a:a`+"\nplain\n", 3); out.String() != want {
		t.Errorf("repeated writes: %q, want %q", out.String(), want)
	}
}

// skipInvisible's ASCII shortcut skips what its Unicode test skips.
func TestSkipInvisibleASCII(t *testing.T) {
	for c := 0; c < utf8.RuneSelf; c++ {
		if c == 0x1b {
			continue // the start of an ANSI sequence, or a control
		}
		s := string(rune(c)) + "x"
		want := 0
		if unicode.IsSpace(rune(c)) || wfcmd.Ignorable(rune(c)) {
			want = 1
		}
		if got := wfcmd.SkipInvisible(s, 0); got != want {
			t.Errorf("wfcmd.SkipInvisible(%q) = %d, want %d", s, got, want)
		}
	}
}
