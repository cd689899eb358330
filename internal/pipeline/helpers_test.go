package pipeline

import (
	"context"
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/report"
	"github.com/tfgate/tfgate/internal/terraform"
	"github.com/tfgate/tfgate/internal/testenv"
)

// testBinary is the pinned terraform built by `make terraform` (or what
// $TFGATE_TEST_TERRAFORM names).
func testBinary(tb testing.TB) terraform.Binary {
	tb.Helper()
	path := testenv.Terraform(tb)
	bin, err := terraform.Resolve(context.Background(), terraform.ResolveOptions{Override: path})
	if err != nil {
		tb.Fatalf("terraform for tests: %v (build it with `make terraform`)", err)
	}
	return bin
}

// statuses lists each result as "name:status", in order.
func statuses(rs []report.Project) (s string) {
	for _, r := range rs {
		s += " " + r.Name + ":" + string(r.Status)
	}
	return strings.TrimSpace(s)
}
