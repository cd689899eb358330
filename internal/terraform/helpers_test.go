package terraform

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/tfgate/tfgate/internal/golden"

	"github.com/tfgate/tfgate/internal/testenv"
)

// realTerraform is the terraform 1.5.7 built into .bin by the Makefile (or the binary
// $TFGATE_TEST_TERRAFORM names). Tests never use a terraform from PATH.
func realTerraform(t testing.TB) Binary {
	t.Helper()
	return resolveTest(t, testenv.Terraform(t))
}

func resolveTest(t testing.TB, path string) Binary {
	t.Helper()
	b, err := Resolve(context.Background(), ResolveOptions{Override: path})
	if err != nil {
		t.Fatalf("resolve %s (build it with `make terraform` or `make tofu`): %v", path, err)
	}
	return b
}

// testEnv is a complete, hermetic environment for terraform.
func testEnv(t testing.TB) map[string]string {
	return map[string]string{
		"TF_CLI_CONFIG_FILE": "/dev/null",
		"HOME":               t.TempDir(),
		"PATH":               "/usr/bin:/bin",
		"TF_IN_AUTOMATION":   "1",
		"TF_INPUT":           "0",
	}
}

// writeFiles writes name → content under a new temporary directory.
func writeFiles(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// writeFake writes an executable shell script standing in for terraform. It
// answers `version -json` with ver and runs cases[subcommand] for the rest
// (exit 0 when the subcommand has no case).
func writeFake(t testing.TB, dir, name, ver string, cases map[string]string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("#!/bin/sh\ncase \"$1\" in\n")
	fmt.Fprintf(&b, "version) echo '{\"terraform_version\":\"%s\",\"platform\":\"linux_amd64\",\"provider_selections\":{}}' ;;\n", ver)
	for sub, body := range cases {
		fmt.Fprintf(&b, "%s)\n%s\n;;\n", sub, body)
	}
	b.WriteString("esac\n")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	writeExecutable(t, p, b.String())
	return p
}

// writeExecutable writes a script while holding syscall.ForkLock, so that a
// parallel test forking terraform cannot inherit the open file and make
// executing it fail with "text file busy" (golang.org/issue/22315).
func writeExecutable(t testing.TB, path, content string) {
	t.Helper()
	syscall.ForkLock.RLock()
	err := os.WriteFile(path, []byte(content), 0o755)
	syscall.ForkLock.RUnlock()
	if err != nil {
		t.Fatal(err)
	}
}

// runDirect runs the real binary without the Runner, to compare with or to
// prepare state (apply) in tests.
func runDirect(t testing.TB, bin Binary, dir string, env map[string]string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(bin.Path, args...)
	cmd.Dir = dir
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", bin.Path, args, err, stderr.String())
	}
	return out
}

// goldenCompare compares got with testdata/<name>.golden, rewriting it with -update.
func goldenCompare(t *testing.T, name, got string) {
	t.Helper()
	golden.Check(t, golden.Path(name), []byte(got))
}

// requireGuard skips a test of the read guard where it is not available, but fails it
// where make test requires the guard (TFGATE_REQUIRE_READ_GUARD, on Linux).
func requireGuard(t testing.TB) {
	t.Helper()
	if err := GuardAvailable(); err != nil {
		if os.Getenv("TFGATE_REQUIRE_READ_GUARD") != "" {
			t.Fatalf("TFGATE_REQUIRE_READ_GUARD is set, and the read guard is not available: %v", err)
		}
		t.Skipf("read guard not available: %v", err)
	}
}
