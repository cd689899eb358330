package stage

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// OptionError is an error about the options a command was given. Its format names each
// option by the request field that holds it, in braces — "{Out} %s is not empty" — and
// cli, which knows the flag that sets each field, writes the flag in its place ("--out
// /tmp/x is not empty"): no package below cli names a flag. Error writes the field names.
type OptionError struct {
	format string
	args   []any
	err    error // what fmt.Errorf made of it: Unwrap reaches a %w argument
}

// Optionf is fmt.Errorf for an OptionError: format names options as {Field} and may wrap
// one error with %w.
func Optionf(format string, args ...any) *OptionError {
	return &OptionError{format: format, args: args, err: fmt.Errorf(placeholder.ReplaceAllString(format, "$1"), args...)}
}

var placeholder = regexp.MustCompile(`\{([A-Z][A-Za-z]*)\}`)

// Message is the error's text with each option written as flag(field) says.
func (e *OptionError) Message(flag func(field string) string) string {
	f := placeholder.ReplaceAllStringFunc(e.format, func(m string) string {
		return strings.ReplaceAll(flag(m[1:len(m)-1]), "%", "%%")
	})
	return fmt.Sprintf(strings.ReplaceAll(f, "%w", "%v"), e.args...)
}

func (e *OptionError) Error() string { return e.err.Error() }
func (e *OptionError) Unwrap() error { return errors.Unwrap(e.err) }
