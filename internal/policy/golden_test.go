package policy

import (
	"testing"

	"github.com/tfgate/tfgate/internal/golden"
)

// golden compares got with testdata/<name>.golden, rewriting it with -update.
func goldenCheck(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Check(t, golden.Path(name), got)
}
