// Package english holds the few rules of English that tfgate's messages need, so that every
// renderer and error says "1 project" and "2 projects" the same way.
package english

import "strconv"

// Plural counts n things: "1 project", "2 projects", "0 projects".
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
