package policy

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/loader"
)

// Source says where policies are read from. FS is the working tree
// (os.DirFS(root)) or, so that a change cannot weaken the rules applied to
// itself, the base commit's tree; Paths are directories or files inside it.
//
// Under each path: every .rego file is a policy module (Rego v1 syntax);
// .json/.yaml/.yml files are data, merged into `data` at their directory
// relative to the path, as `opa eval -d PATH` does (PATH/data.json is the
// root of data, PATH/aws/limits.yaml is data.aws). Hidden files and
// directories are ignored. For evaluation, *_test.rego files and testdata
// directories are left out; Test loads them.
type Source struct {
	FS    fs.FS
	Paths []string
	// Name describes FS in messages, e.g. "base commit 3f2c1aa"; optional.
	Name string
}

func (s Source) where() string {
	if s.Name == "" {
		return ""
	}
	return " (" + s.Name + ")"
}

// loaded is what a Source holds.
type loaded struct {
	modules map[string]*ast.Module
	docs    map[string]any
	files   []string // .rego files, sorted
}

// v0Hint is added to parse errors of files that would parse as Rego v0.
const v0Hint = "rego v1 syntax required: use `contains` and `if` (e.g. `deny contains msg if { ... }`); `opa fmt --v0-v1` rewrites old policies"

func loadSource(src Source, caps *ast.Capabilities, withTests bool) (*loaded, error) {
	if src.FS == nil {
		return nil, errors.New("load policies: no file system given")
	}
	if len(src.Paths) == 0 {
		return nil, errors.New("load policies: no policy paths configured")
	}
	paths := make([]string, 0, len(src.Paths))
	for _, p := range src.Paths {
		clean := path.Clean(filepath.ToSlash(p))
		clean = strings.TrimPrefix(clean, "/")
		if clean == "" || !fs.ValidPath(clean) {
			return nil, fmt.Errorf("load policies: invalid policy path %q: use a path relative to the repository root", p)
		}
		if _, err := fs.Stat(src.FS, clean); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("load policies: policy path %q does not exist%s", p, src.where())
			}
			return nil, fmt.Errorf("load policies: %w", err)
		}
		paths = append(paths, clean)
	}

	if err := checkDataFiles(src.FS, paths, withTests); err != nil {
		return nil, fmt.Errorf("load policies%s:\n%w", src.where(), err)
	}
	res, err := loader.NewFileLoader().
		WithFS(src.FS).
		WithRegoVersion(ast.RegoV1).
		WithCapabilities(caps).
		WithProcessAnnotation(true).
		Filtered(paths, policyFilter(withTests))
	if err != nil {
		return nil, fmt.Errorf("load policies%s:\n%w", src.where(), explainLoadErrors(src.FS, err))
	}

	l := &loaded{modules: make(map[string]*ast.Module, len(res.Modules)), docs: res.Documents}
	for _, f := range res.Modules {
		l.modules[f.Name] = f.Parsed
		l.files = append(l.files, f.Name)
	}
	slices.Sort(l.files)
	if len(l.modules) == 0 {
		return nil, fmt.Errorf("load policies: no .rego policies found in %s%s; a configured policy path must hold policies", strings.Join(src.Paths, ", "), src.where())
	}
	return l, nil
}

// policyFilter returns true for entries the loader must skip.
func policyFilter(withTests bool) loader.Filter {
	return func(_ string, info fs.FileInfo, depth int) bool {
		name := info.Name()
		if depth > 0 && strings.HasPrefix(name, ".") {
			return true
		}
		if info.IsDir() {
			return !withTests && depth > 0 && name == "testdata"
		}
		switch strings.ToLower(path.Ext(name)) {
		case ".rego":
			return !withTests && strings.HasSuffix(name, "_test.rego")
		case ".json", ".yaml", ".yml":
			return false
		default:
			return true
		}
	}
}

// explainLoadErrors lists each loader error on its own line (they already
// carry file:line) and adds the v1 hint to files written in Rego v0.
func explainLoadErrors(fsys fs.FS, err error) error {
	var errs loader.Errors
	if !errors.As(err, &errs) {
		return err
	}
	hinted := map[string]bool{}
	out := make([]error, 0, len(errs))
	for _, e := range errs {
		var ae *ast.Error
		if errors.As(e, &ae) && ae.Code == ast.ParseErr && ae.Location != nil && !hinted[ae.Location.File] {
			if isRegoV0(fsys, ae.Location.File) {
				hinted[ae.Location.File] = true
				out = append(out, fmt.Errorf("%w\n\thint: %s", e, v0Hint))
				continue
			}
		}
		out = append(out, e)
	}
	return errors.Join(out...)
}

func isRegoV0(fsys fs.FS, name string) bool {
	src, err := fs.ReadFile(fsys, name)
	if err != nil {
		return false
	}
	_, err = ast.ParseModuleWithOpts(name, string(src), ast.ParserOptions{RegoVersion: ast.RegoV0})
	return err == nil
}

// PolicyFiles returns the files among changed (slash-separated paths
// relative to the repository root) that are policy inputs under the given
// policy paths: .rego, .json, .yaml and .yml files outside hidden
// directories, tests included. A change touching any of them is judged by the
// base commit's policies, so the output should say that policy changes take
// effect after merge.
func PolicyFiles(paths, changed []string) []string {
	var out []string
	for _, f := range changed {
		f = strings.TrimPrefix(path.Clean(filepath.ToSlash(f)), "./")
		switch strings.ToLower(path.Ext(f)) {
		case ".rego", ".json", ".yaml", ".yml":
		default:
			continue
		}
		for _, p := range paths {
			p = strings.TrimPrefix(path.Clean(filepath.ToSlash(p)), "./")
			rel, ok := strings.CutPrefix(f, p+"/")
			if p == "." {
				rel, ok = f, true
			}
			if f == p || (ok && !hiddenPath(rel)) {
				out = append(out, f)
				break
			}
		}
	}
	return out
}

func hiddenPath(rel string) bool {
	for _, part := range strings.Split(rel, "/") {
		if strings.HasPrefix(part, ".") {
			return true
		}
	}
	return false
}
