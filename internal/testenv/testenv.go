// Package testenv is where tests find what the Makefile builds for them: the pinned
// terraform (TFGATE_TEST_TERRAFORM) and the fakecloud provider mirror (TFGATE_TEST_PLUGINS),
// falling back to .bin/ at the repository root when run without make. Only tests import it;
// a missing tool fails the test with the make target to run, never skips it.
package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// RepoRoot is the directory holding go.mod, found upwards from the test's directory.
func RepoRoot(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatal("go.mod not found above the test directory")
		}
		dir = parent
	}
}

// Terraform is the path of the pinned terraform 1.5.7.
func Terraform(tb testing.TB) string {
	tb.Helper()
	return tool(tb, "TFGATE_TEST_TERRAFORM", "terraform", "terraform")
}

// Plugins is the filesystem mirror holding fakecloud.
func Plugins(tb testing.TB) string {
	tb.Helper()
	dir := tool(tb, "TFGATE_TEST_PLUGINS", "plugins", "fakecloud")
	if _, err := os.Stat(filepath.Join(dir, "registry.terraform.io", "tfgate", "fakecloud")); err != nil {
		tb.Fatalf("fakecloud mirror: %v (run `make fakecloud`)", err)
	}
	return dir
}

func tool(tb testing.TB, env, name, target string) string {
	tb.Helper()
	path := os.Getenv(env) // set by the Makefile
	if path == "" {
		path = filepath.Join(RepoRoot(tb), ".bin", name)
	}
	if _, err := os.Stat(path); err != nil {
		tb.Fatalf("%s for tests: %v (run `make %s`, or `make test`)", name, err, target)
	}
	return path
}

// OpenAPIEnv names GitHub's OpenAPI description for githubtest (set by the Makefile).
const OpenAPIEnv = "TFGATE_GITHUB_OPENAPI"

// OpenAPI is the path of GitHub's official OpenAPI description that `make openapi` installs,
// which githubtest holds every request to. Missing, it fails the test: a fake that validates
// nothing proves nothing.
func OpenAPI(tb testing.TB) string {
	tb.Helper()
	path, err := openAPI(tb)
	if err != nil {
		tb.Fatal(err)
	}
	return path
}

func openAPI(tb testing.TB) (string, error) {
	path := os.Getenv(OpenAPIEnv)
	from := "$" + OpenAPIEnv
	if path == "" {
		path = filepath.Join(RepoRoot(tb), ".bin", "octokit-openapi", "node_modules", "@octokit", "openapi", "generated", "api.github.com.json")
		from = ".bin/"
	}
	if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("GitHub OpenAPI description %s (from %s): %w; run `make openapi`", path, from, err)
	}
	return path, nil
}
