// Package testenv is where tests find what the Makefile builds for them: the terraform the
// end-to-end tests run (TFGATE_TEST_TERRAFORM; the pinned terraform 1.5.7 by default),
// OpenTofu (TFGATE_TEST_TOFU) and the fakecloud provider mirror (TFGATE_TEST_PLUGINS),
// falling back to .bin/ at the repository root when run without make. Only tests import it.
// A missing tool names the make target that builds it: under make (TFGATE_TEST_REQUIRE_ALL, which
// the Makefile exports) it fails the test, since `make test` skips nothing; under a plain
// `go test` it skips the test, so a fresh clone's `go test ./...` never fails only for want
// of a tool. What a test can run without, checking less (GitHub's OpenAPI description, which
// githubtest holds requests to), it logs instead (DoWithout), and the test runs.
package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tfgate/tfgate/internal/testprovider"
)

// TerraformEnv names the binary the end-to-end tests run: a path (a relative one is read
// from the repository root, not from the test's package directory) or a name looked up on
// PATH. Unset, it is the pinned terraform 1.5.7 in .bin/. `make test` runs the end-to-end
// scenarios a second time with it set to .bin/tofu.
const TerraformEnv = "TFGATE_TEST_TERRAFORM"

// TofuEnv names the OpenTofu binary Tofu returns; unset, .bin/tofu (`make tofu`).
const TofuEnv = "TFGATE_TEST_TOFU"

// StrictEnv is set by the Makefile: a missing tool then fails the test instead of skipping it.
const StrictEnv = "TFGATE_TEST_REQUIRE_ALL"

// Missing reports a tool (or file) the test needs and cannot find; err says which and the
// make target that provides it. Under make it fails the test; without make it skips it.
func Missing(tb testing.TB, err error) {
	tb.Helper()
	if os.Getenv(StrictEnv) != "" {
		tb.Fatal(err)
		return
	}
	tb.Skipf("skipped: %v (make test runs it)", err)
}

// DoWithout reports a tool or file a test can run without, checking less; err says which
// and the make target that provides it, unchecked what goes unchecked without it. Under make
// it fails the test, as Missing does; without make it logs both, once per test and
// unchecked, and the test goes on.
func DoWithout(tb testing.TB, err error, unchecked string) {
	tb.Helper()
	if os.Getenv(StrictEnv) != "" {
		tb.Fatal(err)
		return
	}
	key := doneWithout{tb, unchecked}
	if _, logged := loggedWithout.LoadOrStore(key, true); logged {
		return
	}
	tb.Cleanup(func() { loggedWithout.Delete(key) })
	tb.Logf("%s (make test does): %v", unchecked, err)
}

// loggedWithout holds the doneWithout that DoWithout has logged, until their test ends.
var loggedWithout sync.Map

// doneWithout is what one test went without.
type doneWithout struct {
	tb        testing.TB
	unchecked string
}

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

// Terraform is the path of the binary the end-to-end tests run, terraform or tofu
// ($TFGATE_TEST_TERRAFORM); by default the pinned terraform 1.5.7.
func Terraform(tb testing.TB) string {
	tb.Helper()
	return tool(tb, TerraformEnv, "terraform")
}

// Tofu is the path of OpenTofu 1.10.6 ($TFGATE_TEST_TOFU, else .bin/tofu), for tests that
// need tofu whichever binary TFGATE_TEST_TERRAFORM names.
func Tofu(tb testing.TB) string {
	tb.Helper()
	return tool(tb, TofuEnv, "tofu")
}

// Plugins is the filesystem mirror holding fakecloud, under each flavour's address.
func Plugins(tb testing.TB) string {
	tb.Helper()
	dir := tool(tb, "TFGATE_TEST_PLUGINS", "plugins")
	if err := checkMirror(dir); err != nil {
		Missing(tb, fmt.Errorf("fakecloud mirror: %v (run `make fakecloud`)", err))
	}
	return dir
}

// checkMirror says which of fakecloud's addresses the mirror at dir lacks.
func checkMirror(dir string) error {
	for _, addr := range testprovider.Addresses {
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(addr))); err != nil {
			return err
		}
	}
	return nil
}

func tool(tb testing.TB, env, name string) string {
	tb.Helper()
	path, err := toolPath(tb, env, name)
	if err != nil {
		Missing(tb, err)
	}
	return path
}

// toolPath is $env or .bin/name. A missing one names the make target that builds it:
// `make tofu` for a tofu, `make fakecloud` for the plugins, else `make NAME`.
func toolPath(tb testing.TB, env, name string) (string, error) {
	tb.Helper()
	path, from := os.Getenv(env), "$"+env // set by the Makefile
	switch {
	case path == "":
		path, from = filepath.Join(RepoRoot(tb), ".bin", name), ".bin/"
	case !strings.Contains(path, "/"):
		found, err := exec.LookPath(path)
		if err != nil {
			return "", fmt.Errorf("%s=%s for tests: not found on PATH", env, path)
		}
		path = found
	case !filepath.IsAbs(path):
		path = filepath.Join(RepoRoot(tb), path)
	}
	if _, err := os.Stat(path); err != nil {
		target := name
		switch {
		case name == "plugins":
			target = "fakecloud"
		case strings.HasPrefix(filepath.Base(path), "tofu"):
			target = "tofu"
		}
		return "", fmt.Errorf("%s for tests (from %s): %v (run `make %s`, or `make test`)", name, from, err, target)
	}
	return path, nil
}

// OpenAPIEnv names GitHub's OpenAPI description for githubtest (set by the Makefile).
const OpenAPIEnv = "TFGATE_GITHUB_OPENAPI"

// OpenAPI is the path of GitHub's official OpenAPI description that `make openapi` installs,
// for tests of the contract itself. Missing, the test does not run (see Missing).
func OpenAPI(tb testing.TB) string {
	tb.Helper()
	path, err := openAPI(tb)
	if err != nil {
		Missing(tb, err)
	}
	return path
}

// OpenAPIIfPresent is the path of GitHub's OpenAPI description for a test that runs without
// it, checking less (unchecked says what): missing, it is "" and the test goes on (see
// DoWithout). githubtest's server holds every request to the description when it is there.
func OpenAPIIfPresent(tb testing.TB, unchecked string) string {
	tb.Helper()
	path, err := openAPI(tb)
	if err != nil {
		DoWithout(tb, err, unchecked)
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
