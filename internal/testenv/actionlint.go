package testenv

import "testing"

// Actionlint is the actionlint that `make actionlint` builds into .bin/ ($TFGATE_TEST_ACTIONLINT
// overrides it); missing, the test does not run (see Missing) and the make target is named.
func Actionlint(tb testing.TB) string {
	tb.Helper()
	return tool(tb, "TFGATE_TEST_ACTIONLINT", "actionlint")
}
