package policy

import (
	"bytes"
	"context"
	"os"
	"testing"
)

// TestDefaultPolicies runs the Rego unit tests of the default policy library,
// so `go test ./internal/policy/...` fails when any of them fails.
func TestDefaultPolicies(t *testing.T) {
	var out bytes.Buffer
	passed, failed, err := Test(context.Background(), Source{FS: os.DirFS("../.."), Paths: []string{"policies"}}, &out, false)
	if err != nil {
		t.Fatalf("policy tests: %v\n%s", err, out.String())
	}
	if failed > 0 || passed == 0 {
		t.Fatalf("policy tests: %d passed, %d failed\n%s", passed, failed, out.String())
	}
	t.Logf("%d policy tests passed", passed)
}
