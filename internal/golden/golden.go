// Package golden compares what tests render with golden files under testdata/, which
// `go test -update` rewrites. It is for tests only.
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// Path is testdata/<name>.golden, slashes in name (subtest names) turned into underscores.
func Path(name string) string {
	return filepath.Join("testdata", strings.ReplaceAll(name, "/", "_")+".golden")
}

// Check compares got with the golden file at path, or rewrites the file with -update.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (go test -update accepts it)\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}
