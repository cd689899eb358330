package testenv

import (
	"errors"
	"testing"
)

// recorder is a testing.TB that records whether Missing or DoWithout failed, skipped or
// logged.
type recorder struct {
	testing.TB
	failed, skipped bool
	logs            int
}

func (r *recorder) Helper()              {}
func (r *recorder) Fatal(...any)         { r.failed = true }
func (r *recorder) Skipf(string, ...any) { r.skipped = true }
func (r *recorder) Logf(string, ...any)  { r.logs++ }

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

// DoWithout fails under make and otherwise lets the test go on, saying once per test what
// it does not check.
func TestDoWithout(t *testing.T) {
	err := errors.New("GitHub OpenAPI description: no such file; run `make openapi`")
	t.Setenv(StrictEnv, "")
	r := &recorder{TB: t}
	DoWithout(r, err, "the contract is not enforced")
	DoWithout(r, err, "the contract is not enforced")
	if r.failed || r.skipped || r.logs != 1 {
		t.Errorf("without make: failed %v, skipped %v, logged %d times; want one log", r.failed, r.skipped, r.logs)
	}
	DoWithout(r, err, "responses are not checked")
	other := &recorder{TB: t}
	DoWithout(other, err, "the contract is not enforced")
	if r.logs != 2 || other.logs != 1 {
		t.Errorf("logged %d times for two things, %d in another test; want 2 and 1", r.logs, other.logs)
	}
	t.Setenv(StrictEnv, "1")
	r = &recorder{TB: t}
	DoWithout(r, err, "the contract is not enforced")
	if !r.failed || r.skipped || r.logs != 0 {
		t.Errorf("under make: failed %v, skipped %v, logged %d times; want a failure", r.failed, r.skipped, r.logs)
	}
}
