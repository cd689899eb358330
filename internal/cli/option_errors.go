package cli

import (
	"errors"
	"strings"

	"github.com/tfgate/tfgate/internal/stage"
)

// flagOf is the flag that sets each request field the pipeline names in an OptionError.
var flagOf = map[string]string{
	"All":          "--all",
	"AuditLog":     "--audit-log",
	"Changed":      "--changed",
	"ConfigFile":   "--config",
	"CostFile":     "--cost",
	"Expect":       "--expect",
	"Matrix":       "--matrix",
	"Out":          "--out",
	"Parallel":     "--parallel",
	"PatchFile":    "--suggest-patch",
	"Plans":        "--plans",
	"PoliciesFrom": "--policies-from",
	"PR":           "--pr",
	"Publish":      "--publish",
}

func flagName(field string) string {
	if f, ok := flagOf[field]; ok {
		return f
	}
	return field
}

// errorMessage is err's text as a user reads it: each option the pipeline names by its
// request field is written as the flag that sets it.
func errorMessage(err error) string {
	msg := err.Error()
	var oe *stage.OptionError
	for e := err; errors.As(e, &oe); e = errors.Unwrap(oe) {
		msg = strings.Replace(msg, oe.Error(), oe.Message(flagName), 1)
		if errors.Unwrap(oe) == nil {
			break
		}
	}
	return msg
}
