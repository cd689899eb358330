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

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func short(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}

func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}
