package testenv

import "testing"

// Actionlint is the actionlint that `make actionlint` builds into .bin/ ($TFGATE_TEST_ACTIONLINT
// overrides it); missing, it fails the test and names the make target.
func Actionlint(tb testing.TB) string {
	tb.Helper()
	return tool(tb, "TFGATE_TEST_ACTIONLINT", "actionlint")
}
