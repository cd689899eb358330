package bundle

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits bound what Unzip writes. Zero fields take the defaults.
type Limits struct {
	MaxFiles int   // entries (files and directories); default 1,000
	MaxBytes int64 // total uncompressed bytes, counted while decompressing; default 1 GiB
}

func (l Limits) withDefaults() Limits {
	if l.MaxFiles <= 0 {
		l.MaxFiles = 1000
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = 1 << 30
	}
	return l
}

// Unzip extracts a downloaded artifact (a zip archive) into dest, creating it (0700) when
// missing. Files are written 0600 and directories 0700, never over an existing file.
//
// An archive is refused whole, before anything is written, with an error wrapping
// ErrUnsafeArchive that names the entry, when an entry's name is absolute, has a ".." or
// "." or empty component, a backslash, a colon, a control character or bytes that are not UTF-8; when an entry is
// anything but a regular file or a directory (symbolic links included, judged by the zip
// mode bits); when two entries have the same name or one needs a directory where another
// is a file; or when it has more than lim.MaxFiles entries or its headers claim more than
// lim.MaxBytes. The byte limit is also counted while decompressing, so headers that lie
// (zip bombs, overlapping entries) stop at lim.MaxBytes written; dest then holds part of
// the archive and should be discarded. Writing goes through an os.Root at dest, so
// nothing lands outside it whatever the archive holds.
func Unzip(data []byte, dest string, lim Limits) error {
	lim = lim.withDefaults()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) { // our checks below are stricter
		return fmt.Errorf("not a zip archive (%v): %w", err, ErrMalformed)
	}
	if len(zr.File) > lim.MaxFiles {
		return unsafeArchive("", "%d entries, more than the %d allowed", len(zr.File), lim.MaxFiles)
	}
	names, err := checkEntries(zr.File, lim)
	if err != nil {
		return err
	}

	if err := os.MkdirAll(dest, 0o700); err != nil {
		return fmt.Errorf("unzip: %w", err)
	}
	root, err := os.OpenRoot(dest)
	if err != nil {
		return fmt.Errorf("unzip: %w", err)
	}
	defer root.Close()
	left := lim.MaxBytes
	for i, f := range zr.File {
		name := names[i]
		if f.Mode().IsDir() {
			if err := root.MkdirAll(name, 0o700); err != nil {
				return fmt.Errorf("unzip %s: %w", name, err)
			}
			continue
		}
		if dir := path.Dir(name); dir != "." {
			if err := root.MkdirAll(dir, 0o700); err != nil {
				return fmt.Errorf("unzip %s: %w", name, err)
			}
		}
		n, err := extract(root, f, name, left)
		left -= n
		switch {
		case errors.Is(err, errTooLarge):
			return unsafeArchive(name, "more than %d bytes uncompressed in all", lim.MaxBytes)
		case err != nil:
			return err
		}
	}
	return nil
}

// checkEntries validates every entry before anything is written and returns the clean
// names (directories without their trailing slash).
func checkEntries(files []*zip.File, lim Limits) ([]string, error) {
	names := make([]string, len(files))
	isFile := map[string]bool{} // name → regular file (false: directory)
	var claimed uint64
	for i, f := range files {
		raw := f.Name
		mode := f.Mode()
		name := strings.TrimSuffix(raw, "/")
		if reason := unsafeName(name); reason != "" {
			return nil, unsafeArchive(raw, "%s", reason)
		}
		switch {
		case mode.IsDir() && mode&fs.ModeType == fs.ModeDir:
		case mode.IsRegular() && !strings.HasSuffix(raw, "/"):
		default:
			return nil, unsafeArchive(raw, "is not a regular file or directory (mode %v)", mode)
		}
		if f.Flags&0x1 != 0 {
			return nil, unsafeArchive(raw, "is encrypted")
		}
		if _, dup := isFile[name]; dup {
			return nil, unsafeArchive(raw, "appears twice")
		}
		isFile[name] = mode.IsRegular()
		names[i] = name
		claimed += f.UncompressedSize64
		if claimed > uint64(lim.MaxBytes) {
			return nil, unsafeArchive(raw, "the entries claim more than %d bytes uncompressed", lim.MaxBytes)
		}
	}
	for _, name := range names {
		for dir := path.Dir(name); dir != "."; dir = path.Dir(dir) {
			if isFile[dir] {
				return nil, unsafeArchive(name, "needs a directory where entry %q is a file", dir)
			}
		}
	}
	return names, nil
}

// unsafeName says what is wrong with an entry name (without a directory's trailing
// slash), or "".
func unsafeName(name string) string {
	switch {
	case name == "":
		return "has an empty name"
	case strings.HasPrefix(name, "/"):
		return "is an absolute path"
	case strings.Contains(name, `\`):
		return "has a backslash (a Windows path separator)"
	case strings.Contains(name, ":"):
		return "has a colon (a drive letter or stream name)"
	case strings.ContainsFunc(name, unicode.IsControl):
		return "has a control character"
	case !utf8.ValidString(name):
		return "is not UTF-8"
	}
	for _, c := range strings.Split(name, "/") {
		switch c {
		case "..":
			return `has a ".." component`
		case ".", "":
			return "is not a clean path"
		}
	}
	return ""
}

// extract writes one regular entry, at most left bytes, and returns how many it wrote.
func extract(root *os.Root, f *zip.File, name string, left int64) (int64, error) {
	rc, err := f.Open()
	if err != nil {
		return 0, fmt.Errorf("unzip %s: %v: %w", name, err, ErrMalformed)
	}
	defer rc.Close()
	out, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return 0, fmt.Errorf("unzip %s: %w", name, err)
	}
	n, err := io.Copy(out, &limitedReader{r: rc, left: left})
	if cerr := out.Close(); err == nil && cerr != nil {
		return n, fmt.Errorf("unzip %s: %w", name, cerr)
	}
	switch {
	case errors.Is(err, errTooLarge):
		return n, err
	case err != nil:
		return n, fmt.Errorf("unzip %s: damaged (%v): %w", name, err, ErrMalformed)
	}
	return n, nil
}

func unsafeArchive(entry, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if entry != "" {
		msg = fmt.Sprintf("entry %q %s", clip(entry), msg)
	}
	return fmt.Errorf("%s: %w", msg, ErrUnsafeArchive)
}
