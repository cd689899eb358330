package bundle

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// The configuration snapshot of a terraform plan file, compared with the reviewed code.
//
// A saved plan is a zip archive; terraform (1.5 and later, OpenTofu alike) applies the
// configuration it holds under tfconfig/, never the files on disk: tfconfig/modules.json
// lists every module (Key, Source, Version, Dir — Dir relative to the root module's
// directory) and tfconfig/m-<Key>/<file> holds each file terraform loaded from that
// module's Dir ("m-" alone is the root module). A plan file made from other code applies
// that other code, whatever its manifest says; CheckSnapshot is what proves it is not.

// Names inside a terraform plan file.
const (
	snapshotManifest = "tfconfig/modules.json"
	snapshotPrefix   = "tfconfig/m-"
)

// maxSnapshotManifest bounds tfconfig/modules.json (a record per module: a few KiB).
const maxSnapshotManifest = 4 << 20

// ModuleRecord is one module of a configuration as terraform records it: in a plan file's
// tfconfig/modules.json, and in the modules.json `terraform init` writes to its data
// directory (modules/modules.json) for the modules it installed.
type ModuleRecord struct {
	Key     string `json:"Key"`
	Source  string `json:"Source"`
	Version string `json:"Version"`
	Dir     string `json:"Dir"`
}

// SnapshotTree is what a plan's configuration snapshot is compared with.
type SnapshotTree struct {
	// Repo is the repository's working tree at the commit applied (the merge), rooted at
	// the top of the repository.
	Repo fs.FS
	// Dir is the project's directory in Repo (slash, "." for the top).
	Dir string
	// Installed are the modules `terraform init` installed for the project from that tree
	// (its data directory's modules.json); nil when init installed none (it then writes
	// none): the root module alone.
	Installed []ModuleRecord
	// DataDir is terraform's data directory (an absolute path) when it is not the default
	// <Dir>/.terraform in Repo (TF_DATA_DIR), and Data that directory: installed modules
	// named inside it are read there. Root is Repo's absolute path on disk, to tell
	// whether a relative module directory lies inside DataDir.
	DataDir string
	Data    fs.FS
	Root    string
	// Flavor is "terraform" or "tofu": which files each loads from a module directory.
	Flavor string
}

// ReadModulesJSON decodes the modules.json `terraform init` writes ({"Modules": [...]}).
func ReadModulesJSON(data []byte) ([]ModuleRecord, error) {
	var m struct{ Modules []ModuleRecord }
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("terraform's modules.json: %w", err)
	}
	return m.Modules, nil
}

// CheckSnapshot compares the configuration snapshot of the plan file z with t, file by
// file and byte for byte, and returns what differs (nil when the plan's configuration is
// exactly the code in t): a module the code does not have or has from another source or
// directory, a module directory outside the repository, a snapshot file that differs from
// the code or is not in it, a configuration file of the code missing from the snapshot.
// Each problem names the file, as a path in the repository.
func CheckSnapshot(z *zip.Reader, t SnapshotTree) []string {
	snap, files, err := readSnapshot(z)
	if err != nil {
		return []string{"its plan file's configuration snapshot cannot be read (" + err.Error() + "): it is not a plan file terraform wrote; plan again"}
	}
	installed := t.Installed
	if installed == nil {
		installed = []ModuleRecord{{Key: "", Dir: "."}}
	}
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	want := map[string]ModuleRecord{}
	for _, r := range installed {
		want[r.Key] = r
	}
	for _, r := range snap {
		w, ok := want[r.Key]
		switch {
		case !ok:
			add("its plan file's configuration has module %s (source %q), which the reviewed code does not have: the plan was made from other code; plan it again on the reviewed commit", moduleName(r.Key), r.Source)
			continue
		case r.Source != w.Source || r.Version != w.Version:
			add("its plan file's configuration has module %s from %s, but the reviewed code has it from %s: plan it again on the reviewed commit", moduleName(r.Key), sourceText(r), sourceText(w))
			continue
		case path.Clean(filepath.ToSlash(r.Dir)) != path.Clean(filepath.ToSlash(w.Dir)) && !t.sameInstall(r.Dir, w.Dir):
			add("its plan file's configuration reads module %s from directory %q, but terraform installs it in %q: plan it again on the reviewed commit", moduleName(r.Key), r.Dir, w.Dir)
			continue
		}
		// The snapshot's files are compared with what init installed for the merge: a
		// remote module's directory is inside a data directory, which differs from run to
		// run (tfgate gives each its own), and terraform applies the snapshot's copy, not
		// the directory's.
		r.Dir = w.Dir
		problems = append(problems, t.compareModule(r, files[r.Key])...)
	}
	for _, r := range installed {
		if !slices.ContainsFunc(snap, func(s ModuleRecord) bool { return s.Key == r.Key }) {
			add("the reviewed code has module %s (source %q), which its plan file's configuration lacks: plan it again on the reviewed commit", moduleName(r.Key), r.Source)
		}
	}
	return problems
}

// sameInstall reports whether a plan's module directory planned and the directory installed
// that init gave the module for the merge are the same place in two data directories: the
// installed one lies in t.DataDir as modules/<key path>, and planned ends the same way
// (".terraform/modules/m" of a plan made with the default data directory, or another run's
// TF_DATA_DIR).
func (t SnapshotTree) sameInstall(planned, installed string) bool {
	if t.DataDir == "" {
		return false
	}
	rel, err := filepath.Rel(filepath.Clean(t.DataDir), filepath.Clean(installed))
	if err != nil || !strings.HasPrefix(filepath.ToSlash(rel), "modules/") || !fs.ValidPath(filepath.ToSlash(rel)) {
		return false
	}
	return strings.HasSuffix(path.Clean(filepath.ToSlash(planned)), "/"+filepath.ToSlash(rel))
}

// compareModule compares the snapshot's files of one module with its directory.
func (t SnapshotTree) compareModule(r ModuleRecord, snapFiles map[string]*zip.File) []string {
	fsys, dir, shown, err := t.resolve(r.Dir)
	if err != nil {
		return []string{fmt.Sprintf("its plan file's configuration reads module %s from %q, %v: refusing a configuration from outside the reviewed code", moduleName(r.Key), r.Dir, err)}
	}
	var problems []string
	names := slices.Sorted(maps.Keys(snapFiles))
	for _, name := range names {
		f := snapFiles[name]
		where := path.Join(shown, name)
		if name == "." || name == ".." {
			problems = append(problems, fmt.Sprintf("its plan file's configuration holds %s, which is no file terraform writes: refusing it", clip(where)))
			continue
		}
		code, err := fs.ReadFile(fsys, path.Join(dir, name))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			problems = append(problems, fmt.Sprintf("its plan file's configuration holds %s, which is not in the reviewed code: the plan was made from other code; plan it again on the reviewed commit", where))
			continue
		case err != nil:
			problems = append(problems, fmt.Sprintf("%s: %v", where, err))
			continue
		}
		same, err := sameBytes(f, code)
		if err != nil {
			problems = append(problems, fmt.Sprintf("its plan file's copy of %s cannot be read (%v): plan again", where, err))
		} else if !same {
			problems = append(problems, fmt.Sprintf("its plan file's configuration differs from the reviewed code in %s: the plan was made from other code; plan it again on the reviewed commit", where))
		}
	}
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return append(problems, fmt.Sprintf("%s: %v", shown, err))
	}
	for _, name := range configFiles(entries, t.Flavor) {
		if _, ok := snapFiles[name]; !ok {
			problems = append(problems, fmt.Sprintf("%s of the reviewed code is missing from its plan file's configuration: the plan was made from other code; plan it again on the reviewed commit", path.Join(shown, name)))
		}
	}
	return problems
}

// resolve finds a module directory as terraform named it (relative to the root module's
// directory, or inside the data directory): the file system it is in, its path there, and
// how messages name it. Anything outside the repository (and the data directory) is an
// error.
func (t SnapshotTree) resolve(dir string) (fs.FS, string, string, error) {
	d := filepath.ToSlash(dir)
	if t.DataDir != "" && t.Data != nil {
		abs := filepath.Clean(dir)
		if !filepath.IsAbs(abs) && t.Root != "" {
			abs = filepath.Join(t.Root, filepath.FromSlash(t.Dir), dir)
		}
		if rel, err := filepath.Rel(filepath.Clean(t.DataDir), abs); err == nil && filepath.IsAbs(abs) && fs.ValidPath(filepath.ToSlash(rel)) {
			return t.Data, filepath.ToSlash(rel), "terraform's data directory " + filepath.ToSlash(rel), nil
		}
	}
	if d == "" || path.IsAbs(d) || strings.Contains(d, "\\") || strings.ContainsRune(d, 0) {
		return nil, "", "", errors.New("which is outside the repository")
	}
	p := path.Join(t.Dir, d)
	if p == ".." || strings.HasPrefix(p, "../") {
		return nil, "", "", errors.New("which is outside the repository")
	}
	return t.Repo, p, p, nil
}

// configFiles are the names of the files terraform (or OpenTofu) loads from a module
// directory, as its parser selects them: *.tf and *.tf.json (overrides included), for
// OpenTofu also *.tofu and *.tofu.json, which hide the .tf file of the same name; hidden
// and editor backup files are skipped.
func configFiles(entries []fs.DirEntry, flavor string) []string {
	var names []string
	have := map[string]bool{}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		have[e.Name()] = true
	}
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || ignoredFile(n) {
			continue
		}
		switch {
		case strings.HasSuffix(n, ".tf"), strings.HasSuffix(n, ".tf.json"):
			if flavor == "tofu" {
				twin := strings.TrimSuffix(n, ".json")
				twin = strings.TrimSuffix(twin, ".tf") + ".tofu"
				if strings.HasSuffix(n, ".json") {
					twin += ".json"
				}
				if have[twin] {
					continue // OpenTofu loads the .tofu file instead
				}
			}
			names = append(names, n)
		case flavor == "tofu" && (strings.HasSuffix(n, ".tofu") || strings.HasSuffix(n, ".tofu.json")):
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names
}

// ignoredFile: what terraform's parser skips in a module directory.
func ignoredFile(name string) bool {
	return strings.HasPrefix(name, ".") || strings.HasSuffix(name, "~") ||
		strings.HasPrefix(name, "#") && strings.HasSuffix(name, "#")
}

// readSnapshot reads the module records and the entries of each module's files. Two
// entries of one name (terraform writes none; a reader keeps one of them) are refused.
func readSnapshot(z *zip.Reader) ([]ModuleRecord, map[string]map[string]*zip.File, error) {
	files := map[string]map[string]*zip.File{}
	var manifest *zip.File
	for _, f := range z.File {
		switch {
		case f.Name == snapshotManifest:
			if manifest != nil {
				return nil, nil, fmt.Errorf("two entries %s", snapshotManifest)
			}
			manifest = f
		case strings.HasPrefix(f.Name, snapshotPrefix):
			key, name := path.Split(strings.TrimPrefix(f.Name, snapshotPrefix))
			if key == "" || name == "" {
				continue // terraform ignores the one, the other is a directory entry
			}
			key = strings.TrimSuffix(key, "/")
			if files[key] == nil {
				files[key] = map[string]*zip.File{}
			}
			if _, dup := files[key][name]; dup {
				return nil, nil, fmt.Errorf("two entries %s", clip(f.Name))
			}
			files[key][name] = f
		}
	}
	if manifest == nil {
		return nil, nil, fmt.Errorf("no %s", snapshotManifest)
	}
	rc, err := manifest.Open()
	if err != nil {
		return nil, nil, err
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, maxSnapshotManifest+1))
	if err != nil {
		return nil, nil, err
	}
	if len(data) > maxSnapshotManifest {
		return nil, nil, fmt.Errorf("%s is larger than %d bytes", snapshotManifest, maxSnapshotManifest)
	}
	var records []ModuleRecord
	if err := json.Unmarshal(data, &records); err != nil {
		return nil, nil, fmt.Errorf("%s: %v", snapshotManifest, err)
	}
	seen := map[string]bool{}
	for _, r := range records {
		if seen[r.Key] {
			return nil, nil, fmt.Errorf("%s lists module %q twice", snapshotManifest, clip(r.Key))
		}
		seen[r.Key] = true
	}
	for key := range files {
		if !seen[key] {
			return nil, nil, fmt.Errorf("files of module %q, which %s does not list", clip(key), snapshotManifest)
		}
	}
	return records, files, nil
}

// sameBytes reports whether the entry holds exactly want, reading at most one byte more.
func sameBytes(f *zip.File, want []byte) (bool, error) {
	if f.UncompressedSize64 != uint64(len(want)) {
		return false, nil
	}
	rc, err := f.Open()
	if err != nil {
		return false, err
	}
	defer rc.Close()
	got, err := io.ReadAll(io.LimitReader(rc, int64(len(want))+1))
	if err != nil {
		return false, err
	}
	return bytes.Equal(got, want), nil
}

func moduleName(key string) string {
	if key == "" {
		return "(the root module)"
	}
	return "module." + strings.ReplaceAll(clip(key), ".", ".module.")
}

func sourceText(r ModuleRecord) string {
	s := fmt.Sprintf("%q", r.Source)
	if r.Version != "" {
		s += " version " + r.Version
	}
	return s
}
