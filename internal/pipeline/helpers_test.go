package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"testing"

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

func testEnv() map[string]string {
	return map[string]string{
		"PATH":               os.Getenv("PATH"),
		"HOME":               os.TempDir(),
		"TF_CLI_CONFIG_FILE": "/dev/null",
		"TF_IN_AUTOMATION":   "1",
		"TF_INPUT":           "0",
	}
}

// writeTree writes files (slash paths → content) under a new temp dir and returns it.
func writeTree(tb testing.TB, files map[string]string) string {
	tb.Helper()
	root := tb.TempDir()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return root
}
