package secret

import (
	"strings"
	"unicode"
)

// guardedForms are the spellings of v once the workflow-command guard (render.CommandGuard,
// which sits above the masking writer, so that tfgate's own commands are masked too) has
// neutralised it: the '[' of every "##[" written \u005b, the first ':' of a "::" that
// starts a line written \u003a. A secret holding one reaches the masker so spelled, all
// but one character of it shown. Its start may also end a command begun before it ("##"
// then "[…", "#" then "#[…"), and it may start a line. nil when the guard leaves v as it is.
func guardedForms(v string) []string {
	if !strings.Contains(v, "[") && !strings.Contains(v, "::") {
		return nil
	}
	inner := escapeLegacy(v)
	forms := []string{inner}
	switch {
	case strings.HasPrefix(inner, "["):
		forms = append(forms, `\u005b`+inner[1:])
	case strings.HasPrefix(inner, "#["):
		forms = append(forms, `#\u005b`+inner[2:])
	}
	if i := len(inner) - len(strings.TrimLeftFunc(inner, invisible)); strings.HasPrefix(inner[i:], "::") {
		for _, f := range forms[:len(forms):len(forms)] {
			forms = append(forms, f[:i]+`\u003a`+f[i+1:])
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

// escapeLegacy writes the '[' of every "##[" in v as \u005b, as the guard does.
func escapeLegacy(v string) string {
	var b strings.Builder
	last := 0
	for i := 2; i < len(v); i++ {
		if v[i] == '[' && v[i-1] == '#' && v[i-2] == '#' {
			b.WriteString(v[last:i])
			b.WriteString(`\u005b`)
			last = i + 1
		}
	}
	if last == 0 {
		return v
	}
	b.WriteString(v[last:])
	return b.String()
}

// invisible is what the guard skips before a leading "::": white space, controls, format
// characters, combining marks and variation selectors (not ANSI escape sequences).
func invisible(r rune) bool {
	return unicode.IsSpace(r) || unicode.In(r, unicode.Cc, unicode.Cf, unicode.Mn, unicode.Me) ||
		unicode.Is(unicode.Variation_Selector, r)
}
