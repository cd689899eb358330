package render

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/tfgate/tfgate/internal/english"
	"github.com/tfgate/tfgate/internal/github"
)

// clean makes s safe to print on a terminal: control characters (ANSI escapes, newlines,
// carriage returns, C1 controls) and the bidirectional overrides that can make text read
// differently from what it is are shown as Go-style escapes instead of being obeyed.
func clean(s string) string {
	if !needsClean(s) {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError:
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				fmt.Fprintf(&b, `\x%02x`, s[i])
				continue
			}
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func needsClean(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == 0x7f || c >= 0x80 {
			if c < 0x80 {
				return true
			}
			// Non-ASCII: decode and check properly (slow path only for non-ASCII text).
			for _, r := range s[i:] {
				if r == utf8.RuneError || unsafeRune(r) || r < 0x20 || r == 0x7f {
					return true
				}
			}
			return false
		}
	}
	return false
}

// unsafeRune: C1 controls, bidi embeddings/overrides/isolates, line/paragraph separators.
func unsafeRune(r rune) bool {
	return (r >= 0x80 && r <= 0x9f) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) ||
		r == 0x2028 || r == 0x2029 || r == 0x200e || r == 0x200f || r == 0x061c
}

// cleanLines splits multi-line text (terraform errors) into cleaned lines.
func cleanLines(s string) []string {
	s = strings.TrimRight(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = clean(l)
	}
	return lines
}

// runes is the display width used for alignment (one column per rune is close enough for
// the ASCII-heavy text of plans).
func runes(s string) int {
	return utf8.RuneCountInString(s)
}

// FitStatus cuts s to GitHub's limit on a commit status description, ending it with "…".
func FitStatus(s string) string { return fit(s, github.MaxStatusDescription) }

// fit shortens s to at most n runes, marking the cut with "…".
func fit(s string, n int) string {
	return english.Clip(s, n)
}

func pad(s string, n int) string {
	if w := runes(s); w < n {
		return s + strings.Repeat(" ", n-w)
	}
	return s
}

// palette applies ANSI styles only when colour is on.
type palette bool

const (
	ansiBold    = "1"
	ansiDim     = "2"
	ansiRed     = "31"
	ansiGreen   = "32"
	ansiYellow  = "33"
	ansiBlue    = "34"
	ansiMagenta = "35"
	ansiCyan    = "36"
)

func (p palette) paint(code, s string) string {
	if !p || s == "" {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

// wrap breaks text into lines of at most n runes at spaces (a longer word stays whole).
func wrap(s string, n int) []string {
	var lines []string
	var cur strings.Builder
	for _, word := range strings.Fields(s) {
		if cur.Len() > 0 && runes(cur.String())+1+runes(word) > n {
			lines = append(lines, cur.String())
			cur.Reset()
		}
		if cur.Len() > 0 {
			cur.WriteByte(' ')
		}
		cur.WriteString(word)
	}
	if cur.Len() > 0 || len(lines) == 0 {
		lines = append(lines, cur.String())
	}
	return lines
}
