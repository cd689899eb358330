// Package fileio holds the two ways tfgate writes files that others read while it runs:
// WriteAtomic, which replaces a file so that no reader ever sees half of it (bundle
// manifests, the terraform version cache, the metrics file a collector scrapes), and
// CopyTree, which copies a directory of regular files and nothing else (a provider package
// into the plugin cache, a matrix job's bundle into `publish --out`). What is written, and
// where, is the caller's business.
package fileio

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteAtomic replaces path with data through a temporary file beside it, renamed over
// path once complete, with the permissions perm. The directory must exist.
func WriteAtomic(path string, data []byte, perm fs.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// Modes says what permissions CopyTree gives the copies.
type Modes int

const (
	// KeepModes gives each copy its original's permissions (directories stay writable by
	// the owner, so the copy can be removed).
	KeepModes Modes = iota
	// OwnerOnly makes every directory 0700 and every file 0600, whatever the originals.
	OwnerOnly
)

// CopyTree copies the regular files and directories under src into dst, creating dst.
// Anything else — a symbolic link, a device, a socket — is refused with its path: a link
// could point anywhere. An existing file in dst is an error, never overwritten.
func CopyTree(src, dst string, modes Modes) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		out := filepath.Join(dst, rel)
		dirMode, fileMode := info.Mode().Perm()|0o700, info.Mode().Perm()
		if modes == OwnerOnly {
			dirMode, fileMode = 0o700, 0o600
		}
		switch {
		case d.IsDir():
			if err := os.MkdirAll(out, dirMode); err != nil {
				return err
			}
			return os.Chmod(out, dirMode)
		case info.Mode().IsRegular():
			return copyFile(path, out, fileMode)
		}
		return fmt.Errorf("%s: not a regular file", path)
	})
}

func copyFile(src, dst string, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	return errors.Join(err, out.Close())
}
