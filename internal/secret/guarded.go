package secret

import (
	"strings"

	"github.com/tfgate/tfgate/internal/wfcmd"
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
	inner := wfcmd.NeutralizeLegacy(v)
	forms := []string{inner}
	// A "##" or "#" before the secret and its first "[" or "#[".
	if i := wfcmd.SkipIgnorable(inner, 0); i < len(inner) && inner[i] == '[' {
		forms = append(forms, inner[:i]+`\u005b`+inner[i+1:])
	} else if i < len(inner) && inner[i] == '#' {
		if j := wfcmd.SkipIgnorable(inner, i+1); j < len(inner) && inner[j] == '[' {
			forms = append(forms, inner[:j]+`\u005b`+inner[j+1:])
		}
	}
	// The secret at the start of a line.
	if i := wfcmd.SkipInvisible(inner, 0); i < len(inner) && inner[i] == ':' {
		if j := wfcmd.SkipIgnorable(inner, i+1); j == len(inner) || inner[j] == ':' { // (its ':' then one after it)
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
