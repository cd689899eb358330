package policy

import (
	"os"
	"path/filepath"
	"testing"
)

// The example monorepo carries a copy of some library policies (as a user's repository
// would): keep the copies identical to the library so the demo shows the real thing.
func TestExamplePoliciesMatchLibrary(t *testing.T) {
	copies, err := filepath.Glob("../../examples/monorepo/policies/*.rego")
	if err != nil || len(copies) == 0 {
		t.Fatalf("no example policies found: %v", err)
	}
	for _, c := range copies {
		lib := filepath.Join("../../policies", filepath.Base(c))
		want, err := os.ReadFile(lib)
		if err != nil {
			t.Errorf("%s has no counterpart in policies/: %v", c, err)
			continue
		}
		got, _ := os.ReadFile(c)
		if string(got) != string(want) {
			t.Errorf("%s differs from %s: copy the library file again (cp %s %s)", c, lib, lib, c)
		}
	}
}
