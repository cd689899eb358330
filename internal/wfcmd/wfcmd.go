// Package wfcmd is how the GitHub Actions runner reads a workflow command in a line a step
// prints (a line ends at LF, CR or CRLF):
//
//   - `::name props::data` when the line, after leading white space, starts with `::`
//     (ActionCommand.TryParseV2);
//   - `##[name props]data` anywhere in the line (ActionCommand.TryParse, the legacy form).
//
// The runner compares with .NET's culture-sensitive StartsWith and IndexOf, which may skip
// zero-width and other ignorable characters, so these checks skip them too. It is one
// package so that the two that must agree read the same rules: render's CommandGuard,
// which neutralises every such line, and secret's masker, which must recognise a secret
// as the guard spells it once neutralised.
package wfcmd

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// NeutralizeLegacy escapes the `[` of every `##[` in s: all a command's data needs, where
// a `::` is no command.
func NeutralizeLegacy(s string) string {
	j := Legacy(s)
	if j < 0 {
		return s
	}
	var b strings.Builder
	for ; j >= 0; j = Legacy(s) {
		b.WriteString(s[:j])
		b.WriteString(`\u005b`)
		s = s[j+1:]
	}
	b.WriteString(s)
	return b.String()
}

// Text is what the checks read: a line as a string, or as the bytes the guard holds.
type Text interface{ ~string | ~[]byte }

// Leading is the offset of the first `:` of a `::` that starts line after white
// space, control and ignorable characters and ANSI escape sequences, or -1.
func Leading[T Text](line T) int {
	i := SkipInvisible(line, 0)
	if i < len(line) && line[i] == ':' {
		if k := SkipIgnorable(line, i+1); k < len(line) && line[k] == ':' {
			return i
		}
	}
	return -1
}

// Legacy is the offset of the `[` of the first `##[` in s (ignorable characters
// between them skipped), or -1.
func Legacy[T Text](s T) int {
	for i := 0; i < len(s); i++ {
		if s[i] != '#' {
			continue
		}
		j := SkipIgnorable(s, i+1)
		if j >= len(s) || s[j] != '#' {
			continue
		}
		if k := SkipIgnorable(s, j+1); k < len(s) && s[k] == '[' {
			return k
		}
	}
	return -1
}

// SkipInvisible skips what may stand before a command at the start of a line: white
// space, control and ignorable characters, and ANSI CSI sequences (ESC [ … final byte).
func SkipInvisible[T Text](s T, i int) int {
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
		if c := s[i]; c < utf8.RuneSelf { // ASCII: white space and controls only
			if c > ' ' && c != 0x7f {
				return i
			}
			i++
			continue
		}
		r, size := decodeRune(s, i)
		if !unicode.IsSpace(r) && !Ignorable(r) {
			return i
		}
		i += size
	}
	return i
}

// SkipIgnorable skips characters a culture-sensitive comparison may ignore.
func SkipIgnorable[T Text](s T, i int) int {
	for i < len(s) {
		r, size := decodeRune(s, i)
		if !Ignorable(r) {
			return i
		}
		i += size
	}
	return i
}

// decodeRune is utf8.DecodeRuneInString(s[i:]) for strings and bytes alike, without
// copying more than the rune.
func decodeRune[T Text](s T, i int) (rune, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	var buf [utf8.UTFMax]byte
	n := copy(buf[:], s[i:])
	return utf8.DecodeRune(buf[:n])
}

// Ignorable: controls, format characters (zero-width space and joiners, bidi marks, the
// byte order mark, soft hyphen), combining marks and variation selectors.
func Ignorable(r rune) bool {
	if r < utf8.RuneSelf { // of ASCII, only the controls (Cc) are in these classes
		return r < 0x20 || r == 0x7f
	}
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Mn, unicode.Me) || unicode.Is(unicode.Variation_Selector, r)
}
