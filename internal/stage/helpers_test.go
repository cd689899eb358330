package stage

import (
	"context"
	"testing"

	"github.com/tfgate/tfgate/internal/terraform"
	"github.com/tfgate/tfgate/internal/testenv"
)

// testBinary is the pinned terraform built by `make terraform` (or what
// $TFGATE_TEST_TERRAFORM names).
func testBinary(tb testing.TB) terraform.Binary {
	tb.Helper()
	bin, err := terraform.Resolve(context.Background(), terraform.ResolveOptions{Override: testenv.Terraform(tb)})
	if err != nil {
		tb.Fatalf("terraform for tests: %v (build it with `make terraform`)", err)
	}
	return bin
}
