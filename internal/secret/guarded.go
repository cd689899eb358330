package secret

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// guardedForms are the spellings of v once the workflow-command guard (render.CommandGuard,
// which sits above the masking writer, so that tfgate's own commands are masked too) has
// neutralised it: the '[' of every "##[" written \u005b, the first ':' of a "::" that
// starts a line written \u003a. A secret holding one reaches the masker so spelled, all
// but one character of it shown. Its start may also end a command begun before it ("##"
// then "[…", "#" then "#[…"), and it may start a line. nil when the guard leaves v as it is.
func guardedForms(v string) []string {
	if !strings.Contains(v, "[") && !strings.Contains(v, ":") {
		return nil
	}
	inner := escapeLegacy(v)
	forms := []string{inner}
	// A "##" or "#" before the secret and its first "[" or "#[".
	if i := skipIgnorable(inner, 0); i < len(inner) && inner[i] == '[' {
		forms = append(forms, inner[:i]+`\u005b`+inner[i+1:])
	} else if i < len(inner) && inner[i] == '#' {
		if j := skipIgnorable(inner, i+1); j < len(inner) && inner[j] == '[' {
			forms = append(forms, inner[:j]+`\u005b`+inner[j+1:])
		}
	}
	// The secret at the start of a line.
	if i := skipInvisible(inner); i < len(inner) && inner[i] == ':' {
		if j := skipIgnorable(inner, i+1); j == len(inner) || inner[j] == ':' { // (its ':' then one after it)
			for _, f := range forms[:len(forms):len(forms)] {
				forms = append(forms, f[:i]+`\u003a`+f[i+1:])
			}
		}
	}
	out := forms[:0]
	for _, f := range forms {
		if f != v {
			out = append(out, f)
		}
	}
	return out
}

// escapeLegacy writes the '[' of every "##[" in v as \u005b, as the guard does (ignorable
// characters between the three skipped).
func escapeLegacy(v string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(v); i++ {
		if v[i] != '#' {
			continue
		}
		j := skipIgnorable(v, i+1)
		if j >= len(v) || v[j] != '#' {
			continue
		}
		if k := skipIgnorable(v, j+1); k < len(v) && v[k] == '[' {
			b.WriteString(v[last:k])
			b.WriteString(`\u005b`)
			last, i = k+1, k
		}
	}
	if last == 0 {
		return v
	}
	b.WriteString(v[last:])
	return b.String()
}

// skipIgnorable skips the characters the guard ignores between "#", "#" and "[".
func skipIgnorable(s string, i int) int {
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !ignorable(r) {
			return i
		}
		i += size
	}
	return i
}

// skipInvisible skips what the guard skips before a leading "::": white space, ignorable
// characters and ANSI CSI sequences (ESC [ … final byte).
func skipInvisible(s string) int {
	i := 0
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
		if !unicode.IsSpace(r) && !ignorable(r) {
			return i
		}
		i += size
	}
	return i
}

// ignorable: controls, format characters, combining marks and variation selectors.
func ignorable(r rune) bool {
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Mn, unicode.Me) || unicode.Is(unicode.Variation_Selector, r)
}
