package mermaidcheck

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// diagram is one *.mmd file: its path from the repository root and its Mermaid source.
type diagram struct {
	Name   string `json:"name"`
	Source string `json:"source"`
}

// rejectedDir holds this package's deliberately invalid diagrams, which Mermaid must
// reject: they prove the check can fail, and are not goldens.
const rejectedDir = "internal/mermaidcheck/testdata/rejected"

// skipDirs are never searched: git's, terraform's, the tool cache (a directory in CI) and
// npm packages.
var skipDirs = []string{".git", ".terraform", ".bin", "node_modules"}

// findDiagrams is every *.mmd file in a testdata directory of the repository at root, in
// path order: the goldens (and this package's valid fixtures), then the ones in rejectedDir.
// It follows no symbolic link.
func findDiagrams(t *testing.T, root string) (accepted, rejected []diagram) {
	t.Helper()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && slices.Contains(skipDirs, d.Name()) {
			return filepath.SkipDir
		}
		if !d.Type().IsRegular() || filepath.Ext(path) != ".mmd" {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if !slices.Contains(strings.Split(rel, "/"), "testdata") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.HasPrefix(rel, rejectedDir+"/") {
			rejected = append(rejected, diagram{rel, string(src)})
		} else {
			accepted = append(accepted, diagram{rel, string(src)})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return accepted, rejected
}
