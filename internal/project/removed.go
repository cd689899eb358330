package project

import (
	"path"
	"strings"

	"github.com/tfgate/tfgate/internal/tffiles"
)

// RemovedDirs returns the directories (root-relative, sorted, each once) that a change
// removed as Terraform modules: each held one of the deleted Terraform (*.tf, *.tf.json, *.tofu, *.tofu.json) files and,
// by exists, holds none any more (or is gone). deleted are root-relative slash paths of
// deleted files, both sides of renames included as Changed expects; exists(dir) reports
// whether dir still holds Terraform (*.tf, *.tf.json, *.tofu, *.tofu.json) files and is called once per candidate dir.
//
// A removed directory may have been a root module whose resources are still in its state,
// or just a local module; telling them apart needs the base commit's projects, which is
// the caller's business. Paths outside the repository ("../x.tf") are ignored.
func RemovedDirs(deleted []string, exists func(dir string) bool) []string {
	candidates := map[string]bool{}
	for _, f := range deleted {
		f = path.Clean(strings.TrimPrefix(f, "./"))
		if !tffiles.IsConfig(path.Base(f)) || !local(f) || path.IsAbs(f) {
			continue
		}
		candidates[path.Dir(f)] = true
	}
	var removed []string
	for _, dir := range sortedKeys(candidates) {
		if !exists(dir) {
			removed = append(removed, dir)
		}
	}
	return removed
}
