package stage

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// smallFile is the size up to which dataDirDigest hashes a file's contents (the backend's
// settings, the module record); above it (provider binaries) size and time stand for it.
const smallFile = 64 << 10

// dataDirDigest is the salted digest of what dir holds — every entry's path, kind, size and
// link target (and whether the link leads anywhere), the contents of the small files —
// leaving out what changes without init: the selected workspace (environment).
func dataDirDigest(dir, salt string) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "data dir v1\x00%s\x00", salt)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		if rel == "environment" {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%q %v", filepath.ToSlash(rel), fi.Mode().Type())
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			_, statErr := os.Stat(p)
			fmt.Fprintf(h, " -> %q %t", target, statErr == nil)
		case fi.Mode().IsRegular() && fi.Size() <= smallFile:
			if err := hashFile(h, p); err != nil {
				return err
			}
		case fi.Mode().IsRegular():
			fmt.Fprintf(h, " %d %d", fi.Size(), fi.ModTime().UnixNano())
		}
		fmt.Fprintln(h)
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("read the data directory: %w", err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func hashFile(w io.Writer, p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	sum := sha256.New()
	if _, err := io.Copy(sum, f); err != nil {
		return err
	}
	fmt.Fprintf(w, " %x", sum.Sum(nil))
	return nil
}
