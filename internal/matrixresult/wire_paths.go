package matrixresult

import (
	"path/filepath"
	"strings"
)

// relBundle is a bundle path under dir relative to it (the result travels with its
// bundles, as one artifact); any other path is kept as is.
func relBundle(path, dir string) string {
	if path == "" {
		return ""
	}
	rel, err := filepath.Rel(dir, path)
	if err != nil || !filepath.IsLocal(rel) {
		return path
	}
	return filepath.ToSlash(rel)
}

func absBundle(path, dir string) string {
	if path == "" || filepath.IsAbs(path) {
		return path
	}
	rel := filepath.FromSlash(path)
	if !filepath.IsLocal(rel) { // a result may not point its bundle elsewhere
		return ""
	}
	return filepath.Join(dir, rel)
}

// BundleDir is the bundle directory (under dir) a bundle path names: the first element of
// its path below dir. ok is false for a path outside dir.
func BundleDir(bundlePath, dir string) (name string, ok bool) {
	rel, err := filepath.Rel(dir, bundlePath)
	if err != nil || !filepath.IsLocal(rel) {
		return "", false
	}
	name, _, _ = strings.Cut(filepath.ToSlash(rel), "/")
	return name, true
}
