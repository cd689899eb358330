package testenv

import (
	"errors"
	"testing"
)

// recorder is a testing.TB that records whether Missing failed or skipped.
type recorder struct {
	testing.TB
	failed, skipped bool
}

func (r *recorder) Helper()              {}
func (r *recorder) Fatal(...any)         { r.failed = true }
func (r *recorder) Skipf(string, ...any) { r.skipped = true }

// Missing fails under make (TFGATE_TEST_REQUIRE_ALL) and skips under a plain go test.
func TestMissing(t *testing.T) {
	err := errors.New("act not found (run `make act`)")
	t.Setenv(StrictEnv, "")
	r := &recorder{TB: t}
	Missing(r, err)
	if r.failed || !r.skipped {
		t.Errorf("without make: failed %v, skipped %v; want a skip", r.failed, r.skipped)
	}
	t.Setenv(StrictEnv, "1")
	r = &recorder{TB: t}
	Missing(r, err)
	if !r.failed || r.skipped {
		t.Errorf("under make: failed %v, skipped %v; want a failure", r.failed, r.skipped)
	}
}
