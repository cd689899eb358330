package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// ChromiumEnv names the Chromium (or Chrome) the Mermaid check runs headless; unset, Debian's
// chromium package, DefaultChromium (`make chromium` installs it).
const ChromiumEnv = "TFGATE_TEST_CHROMIUM"

// DefaultChromium is where Debian's chromium package puts the browser.
const DefaultChromium = "/usr/bin/chromium"

// MermaidEnv names Mermaid's self-contained browser bundle, mermaid.min.js; unset, the one
// `make mermaid` installs from the npm package into .bin/mermaid.
const MermaidEnv = "TFGATE_TEST_MERMAID"

// Chromium is the path of the headless browser the Mermaid goldens are checked in. Missing,
// the test does not run (see Missing) and `make chromium` is named.
func Chromium(tb testing.TB) string {
	tb.Helper()
	path, from := os.Getenv(ChromiumEnv), "$"+ChromiumEnv
	if path == "" {
		path, from = DefaultChromium, "Debian's chromium package"
	}
	if _, err := os.Stat(path); err != nil {
		Missing(tb, fmt.Errorf("chromium for tests (from %s): %v (run `make chromium`, or `make test`)", from, err))
	}
	return path
}

// Mermaid is the path of dist/mermaid.min.js from the npm package mermaid, at the version
// the Makefile pins. Missing, the test does not run (see Missing) and `make mermaid` is named.
func Mermaid(tb testing.TB) string {
	tb.Helper()
	path, from := os.Getenv(MermaidEnv), "$"+MermaidEnv
	if path == "" {
		path, from = filepath.Join(RepoRoot(tb), ".bin", "mermaid", "node_modules", "mermaid", "dist", "mermaid.min.js"), ".bin/"
	}
	if _, err := os.Stat(path); err != nil {
		Missing(tb, fmt.Errorf("mermaid.min.js for tests (from %s): %v (run `make mermaid`, or `make test`)", from, err))
	}
	return path
}
