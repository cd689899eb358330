package bundle

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// List returns the bundle directories in dir (what `plan --out DIR` wrote, or a Store
// fetched): its subdirectories holding a manifest.json, as paths under dir, sorted. It
// does not read the manifests; Open does.
//
// A dir that is itself one bundle (manifest.json at its top, as when someone passes one
// project's bundle to --plans) is listed as that one bundle. A dir that is a bundle and
// also holds bundles is refused: which plans were meant is not clear. Symbolic links are
// not followed; hidden entries are not bundles. No bundles at all is not an error here: the
// caller knows whether it expected some.
func List(ctx context.Context, dir string) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("list bundles: %w", err)
	}
	self := false
	var dirs []string
	for _, e := range entries {
		name := e.Name()
		if name == ManifestFile && e.Type().IsRegular() {
			self = true
			continue
		}
		if !e.IsDir() || name[0] == '.' {
			continue
		}
		st, err := os.Lstat(filepath.Join(dir, name, ManifestFile))
		if err != nil {
			if os.IsNotExist(err) {
				continue
			}
			return nil, fmt.Errorf("list bundles: %w", err)
		}
		if st.Mode().IsRegular() {
			dirs = append(dirs, filepath.Join(dir, name))
		}
	}
	if self {
		if len(dirs) > 0 {
			return nil, fmt.Errorf("list bundles: %s is one bundle (it holds %s) and also holds %d bundle directories: pass the directory `tfgate plan --out` wrote", dir, ManifestFile, len(dirs))
		}
		return []string{dir}, nil
	}
	sort.Strings(dirs)
	return dirs, nil
}
