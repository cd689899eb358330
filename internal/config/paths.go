package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/tfgate/tfgate/internal/english"
	"github.com/tfgate/tfgate/internal/tffiles"
	"gopkg.in/yaml.v3"
)

type fileKind int

const (
	kindAny fileKind = iota
	kindDir
	kindFile
)

// repoPath cleans a slash path relative to the repository root. Paths that are absolute or
// climb out of the root are refused: tfgate only ever acts on what the repository holds.
func (d *decoder) repoPath(n *yaml.Node, what, s string) (string, bool) {
	rel := path.Clean(s)
	switch {
	case strings.Contains(s, `\`):
		d.errorf(n, "%s %q must use forward slashes: %s", what, s, strings.ReplaceAll(s, `\`, "/"))
	case path.IsAbs(s) || filepath.IsAbs(s) || filepath.VolumeName(s) != "":
		d.errorf(n, "%s %q must be relative to the repository root", what, s)
	case rel == ".." || strings.HasPrefix(rel, "../"):
		d.errorf(n, "%s %q is outside the repository", what, s)
	default:
		return rel, true
	}
	return "", false
}

// exists checks that rel (relative to the root) exists and has the wanted kind; given is
// the path as the user wrote it and where says where it was looked for.
func (d *decoder) exists(n *yaml.Node, what, given, rel, where string, kind fileKind) bool {
	if d.root == "" {
		return true
	}
	fi, err := os.Stat(filepath.Join(d.root, filepath.FromSlash(rel)))
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		d.errorf(n, "%s %q does not exist %s%s", what, given, where, d.nearby(given, rel, kind))
	case err != nil:
		d.errorf(n, "%s %q cannot be read: %v", what, given, pathErr(err))
	case kind == kindDir && !fi.IsDir():
		d.errorf(n, "%s %q is not a directory", what, given)
	case kind == kindFile && fi.IsDir():
		d.errorf(n, "%s %q is a directory, not a file", what, given)
	default:
		return true
	}
	return false
}

// nearby suggests an existing sibling of the missing rel, spelt as the user wrote given.
func (d *decoder) nearby(given, rel string, kind fileKind) string {
	entries, err := os.ReadDir(filepath.Join(d.root, filepath.FromSlash(path.Dir(rel))))
	if err != nil {
		return ""
	}
	var names []string
	for _, e := range entries {
		if kind == kindAny || (kind == kindDir) == e.IsDir() {
			names = append(names, e.Name())
		}
	}
	if s := suggest(path.Base(rel), names); s != "" {
		return fmt.Sprintf(" (did you mean %q?)", path.Join(path.Dir(given), s))
	}
	return ""
}

// holdsTerraform checks that the project directory rel (given as the user wrote it) holds
// Terraform (*.tf, *.tf.json, *.tofu, *.tofu.json) files: terraform would plan an empty configuration in any other
// directory. Subdirectories that do hold some are suggested.
func (d *decoder) holdsTerraform(n *yaml.Node, prefix, given, rel string) {
	if d.root == "" {
		return
	}
	dir := filepath.Join(d.root, filepath.FromSlash(rel))
	entries, err := os.ReadDir(dir)
	if err != nil {
		d.errorf(n, "%sdir %q cannot be read: %v", prefix, given, pathErr(err))
		return
	}
	var subdirs []string
	for _, e := range entries {
		switch {
		case tffiles.IsConfig(e.Name()) && !e.IsDir():
			return
		case e.IsDir() && !strings.HasPrefix(e.Name(), ".") && tffiles.DirHasConfig(filepath.Join(dir, e.Name())):
			subdirs = append(subdirs, path.Join(given, e.Name()))
		}
	}
	hint := ""
	switch {
	case len(subdirs) == 1:
		hint = fmt.Sprintf(" (did you mean %q?)", subdirs[0])
	case len(subdirs) > 1:
		quoted := make([]string, len(subdirs))
		for i, s := range subdirs {
			quoted[i] = fmt.Sprintf("%q", s)
		}
		hint = fmt.Sprintf(" (its subdirectories %s do; list each as a project)", english.ClipList(quoted, 3))
	}
	d.errorf(n, "%sdir %q holds no *.tf files; point dir at a Terraform root module%s", prefix, given, hint)
}

// pathErr drops the absolute path an *fs.PathError repeats.
func pathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
