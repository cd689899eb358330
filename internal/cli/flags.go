package cli

import (
	"fmt"
	"slices"
	"strings"
)

func oneOf(flag, value string, allowed ...string) error {
	if slices.Contains(allowed, value) {
		return nil
	}
	return fmt.Errorf("%s %q: want one of %s", flag, value, strings.Join(allowed, ", "))
}
