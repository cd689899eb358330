package project

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	hcljson "github.com/hashicorp/hcl/v2/json"
	"github.com/tfgate/tfgate/internal/tffiles"
	"github.com/zclconf/go-cty/cty"
	"golang.org/x/sync/errgroup"
)

// graph is the local-module graph of a repository, built lazily one directory at a time.
type graph struct {
	root   string
	prefix string // root relative to the git top level: "" when they are the same, else "a/b"
	// scanner reads the contents of project and module directories (contents.go).
	scanner *scanner
	callers map[string]map[string]bool // module dir → files calling it
	tf      map[string][]string        // dir → its *.tf / *.tf.json file names, when known from the walk
	deps    map[string][]string        // dir → local module dirs it calls directly, sorted
	loaded  map[string]bool
	calls   map[string]fileCalls // file → its local module calls, when prefetched
	isDir   map[string]bool      // module target dir → exists, so each is stat'ed once
	// problems are what keeps a directory's module calls from being known for sure:
	// unreadable or unparsable files, sources that leave the repository or name a missing
	// directory. They belong to the directory so that every project using it inherits them,
	// and never stop the discovery of other projects.
	problems map[string][]string
}

func newGraph(top, root string) (*graph, error) {
	prefix := ""
	if top != root {
		t, err1 := filepath.EvalSymlinks(top)
		r, err2 := filepath.EvalSymlinks(root)
		rel, err3 := filepath.Rel(t, r)
		if err := errors.Join(err1, err2, err3); err != nil {
			return nil, fmt.Errorf("root %s inside repository %s: %w", root, top, err)
		}
		if rel = filepath.ToSlash(rel); !local(rel) {
			return nil, fmt.Errorf("root %s is outside the git repository %s", root, top)
		}
		if rel != "." {
			prefix = rel
		}
	}
	g := &graph{
		root:     root,
		prefix:   prefix,
		callers:  map[string]map[string]bool{},
		tf:       map[string][]string{},
		deps:     map[string][]string{},
		loaded:   map[string]bool{},
		calls:    map[string]fileCalls{},
		isDir:    map[string]bool{},
		problems: map[string][]string{},
	}
	g.scanner = newScanner(root, g.inRepo)
	return g, nil
}

// inRepo reports whether a cleaned root-relative slash path stays inside the git
// repository, which extends above root when root is a subdirectory of it.
func (g *graph) inRepo(rel string) bool {
	if g.prefix == "" {
		return local(rel)
	}
	return local(path.Join(g.prefix, rel))
}

// callersOf returns the files (sorted) whose module blocks call dir.
func (g *graph) callersOf(dir string) []string {
	return sortedKeys(g.callers[dir])
}

// problemsOf returns the problems of dir and of every local module it uses, dir's first.
func (g *graph) problemsOf(dir string) []string {
	var out []string
	for _, d := range append([]string{dir}, g.closure(dir)...) {
		out = append(out, g.problems[d]...)
	}
	return out
}

// HasTerraform reports whether dir (root-relative) holds Terraform files (*.tf, *.tf.json,
// *.tofu, *.tofu.json).
func HasTerraform(root, dir string) bool {
	return tffiles.DirHasConfig(filepath.Join(root, filepath.FromSlash(dir)))
}

// parseHCL parses native HCL or, for *.json names, HCL's JSON syntax.
func parseHCL(src []byte, name string) (*hcl.File, hcl.Diagnostics) {
	if strings.HasSuffix(name, ".json") {
		return hcljson.Parse(src, name)
	}
	return hclsyntax.ParseConfig(src, name, hcl.InitialPos)
}

// walk returns every directory under root (root-relative, sorted) holding Terraform files,
// skipping the directories skipDir names.
func (g *graph) walk(ctx context.Context) ([]string, error) {
	err := filepath.WalkDir(g.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("scan %s: %w", p, err)
		}
		if d.IsDir() {
			if err := ctx.Err(); err != nil {
				return err
			}
			if p != g.root && skipDir(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if !tffiles.IsConfig(d.Name()) || !(d.Type().IsRegular() || d.Type()&fs.ModeSymlink != 0) {
			return nil
		}
		rel, err := filepath.Rel(g.root, filepath.Dir(p))
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(rel)
		g.tf[dir] = append(g.tf[dir], d.Name())
		return nil
	})
	if err != nil {
		return nil, err
	}
	dirs := make([]string, 0, len(g.tf))
	for d := range g.tf {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	return dirs, nil
}

// load parses dir's module calls and, transitively, those of every local module it uses.
// Problems are recorded in g.problems; only cancellation is returned.
func (g *graph) load(ctx context.Context, dir string) error {
	if g.loaded[dir] {
		return nil
	}
	g.loaded[dir] = true
	if err := ctx.Err(); err != nil {
		return err
	}
	files, ok := g.tf[dir]
	if !ok {
		var err error
		if files, err = g.listTerraformFiles(dir); err != nil {
			g.problems[dir] = append(g.problems[dir], err.Error())
		}
	}
	seen := map[string]bool{}
	for _, name := range files {
		file := path.Join(dir, name)
		fc, ok := g.calls[file]
		if !ok {
			fc = g.moduleCalls(file)
		}
		if fc.problem != "" {
			g.problems[dir] = append(g.problems[dir], fc.problem)
		}
		for _, c := range fc.calls {
			target, err := g.resolve(dir, c)
			if err != nil {
				g.problems[dir] = append(g.problems[dir], err.Error())
				continue
			}
			seen[target] = true
			if g.callers[target] == nil {
				g.callers[target] = map[string]bool{}
			}
			g.callers[target][c.file] = true
		}
	}
	g.deps[dir] = sortedKeys(seen)
	for _, m := range g.deps[dir] {
		if err := g.load(ctx, m); err != nil {
			return err
		}
	}
	return nil
}

func (g *graph) listTerraformFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(g.root, filepath.FromSlash(dir)))
	if err != nil {
		return nil, fmt.Errorf("%s: directory cannot be read: %v; fix its permissions", dir, pathErr(err))
	}
	var files []string
	for _, e := range entries {
		if !e.IsDir() && tffiles.IsConfig(e.Name()) {
			files = append(files, e.Name())
		}
	}
	return files, nil
}

// prefetch reads and parses the Terraform files of dirs concurrently: on a big monorepo
// Discover's time is mostly spent opening files, which overlaps well.
func (g *graph) prefetch(ctx context.Context, dirs []string) error {
	var files []string
	for _, d := range dirs {
		for _, name := range g.tf[d] {
			files = append(files, path.Join(d, name))
		}
	}
	results := make([]fileCalls, len(files))
	eg, ctx := errgroup.WithContext(ctx)
	eg.SetLimit(prefetchWorkers)
	for i, f := range files {
		eg.Go(func() error {
			if err := ctx.Err(); err != nil {
				return err
			}
			results[i] = g.moduleCalls(f)
			return nil
		})
	}
	if err := eg.Wait(); err != nil {
		return err
	}
	for i, f := range files {
		g.calls[f] = results[i]
	}
	return nil
}

// prefetchWorkers bounds concurrent file reads; they wait on I/O more than on CPU.
const prefetchWorkers = 8

// moduleCall is a module block with a literal local source.
type moduleCall struct {
	file   string // root-relative
	line   int
	name   string
	source string
}

var (
	fileSchema   = &hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "module", LabelNames: []string{"name"}}}}
	moduleSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "source"}}}
)

// fileCalls is what one file says about local modules: its calls, or a problem that
// keeps them from being known.
type fileCalls struct {
	calls   []moduleCall
	problem string
}

// moduleCalls returns the local module calls in one file. A file that cannot be read or
// does not parse has none and a problem instead: its project's module links are unknown.
func (g *graph) moduleCalls(file string) fileCalls {
	src, err := os.ReadFile(filepath.Join(g.root, filepath.FromSlash(file)))
	if err != nil {
		return fileCalls{problem: fmt.Sprintf("%s: cannot be read: %v; fix or remove the file", file, pathErr(err))}
	}
	return parseCalls(src, file)
}

// LocalModuleDirs returns the directories (root-relative, cleaned, sorted, each once) that
// the module blocks of file call through literal local sources, given its content src;
// nil when it calls none or does not parse. It reads a file as it was at another commit.
func LocalModuleDirs(src []byte, file string) []string {
	set := map[string]bool{}
	for _, c := range parseCalls(src, file).calls {
		set[path.Join(path.Dir(file), c.source)] = true
	}
	if len(set) == 0 {
		return nil
	}
	return sortedKeys(set)
}

// parseCalls is moduleCalls for a file already read.
func parseCalls(src []byte, file string) fileCalls {
	// Most files call no module; skip parsing them. A syntax error in such a file hides no
	// module link, so it is left for terraform to report when the project is planned.
	if !bytes.Contains(src, []byte("module")) {
		return fileCalls{}
	}
	f, diags := parseHCL(src, file)
	if diags.HasErrors() || f == nil {
		return fileCalls{problem: syntaxProblem(file, diags)}
	}
	// Schema diagnostics (unexpected labels, other block types) are terraform's to report.
	content, _, _ := f.Body.PartialContent(fileSchema)
	var calls []moduleCall
	for _, b := range content.Blocks {
		attrs, _, _ := b.Body.PartialContent(moduleSchema)
		attr, ok := attrs.Attributes["source"]
		if !ok {
			continue
		}
		v, diags := attr.Expr.Value(nil)
		if diags.HasErrors() || v.IsNull() || !v.IsKnown() || !v.Type().Equals(cty.String) {
			continue // not a literal string: terraform rejects it at init
		}
		source := v.AsString()
		if !strings.HasPrefix(source, "./") && !strings.HasPrefix(source, "../") {
			continue // registry, git, http, … sources are not part of the repository
		}
		calls = append(calls, moduleCall{file: file, line: attr.Expr.Range().Start.Line, name: b.Labels[0], source: source})
	}
	return fileCalls{calls: calls}
}

// syntaxProblem describes the first syntax error in file. Only its summary is kept:
// terraform explains it in full when the project is planned or validated.
func syntaxProblem(file string, diags hcl.Diagnostics) string {
	for _, d := range diags {
		if d.Severity != hcl.DiagError {
			continue
		}
		where := file
		if d.Subject != nil && d.Subject.Start.Line > 0 {
			where = fmt.Sprintf("%s:%d", file, d.Subject.Start.Line)
		}
		return fmt.Sprintf("%s: syntax error: %s; fix the file (terraform validate shows the details)", where, d.Summary)
	}
	return fmt.Sprintf("%s: syntax error; fix the file (terraform validate shows the details)", file)
}

// pathErr drops the absolute path an *fs.PathError repeats: messages name the
// root-relative path themselves.
func pathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// resolve returns the root-relative directory a local module call points at.
func (g *graph) resolve(dir string, c moduleCall) (string, error) {
	target := path.Join(dir, c.source)
	if !g.inRepo(target) {
		return "", fmt.Errorf("%s:%d: module %q: source %q points outside the repository: keep local modules inside it or use a remote source",
			c.file, c.line, c.name, c.source)
	}
	isDir, ok := g.isDir[target]
	if !ok {
		fi, err := os.Stat(filepath.Join(g.root, filepath.FromSlash(target)))
		isDir = err == nil && fi.IsDir()
		g.isDir[target] = isDir
	}
	if !isDir {
		return "", fmt.Errorf("%s:%d: module %q: source %q: directory %s does not exist: fix the source or add the module",
			c.file, c.line, c.name, c.source, target)
	}
	return target, nil
}

// closure returns every local module dir reachable from dir (not dir itself), sorted.
func (g *graph) closure(dir string) []string {
	seen := map[string]bool{dir: true}
	stack := []string{dir}
	var mods []string
	for len(stack) > 0 {
		d := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, m := range g.deps[d] {
			if !seen[m] {
				seen[m] = true
				mods = append(mods, m)
				stack = append(stack, m)
			}
		}
	}
	sort.Strings(mods)
	return mods
}

// HoldsTerraform reports whether dir directly holds Terraform files among files (paths in
// the same form as dir, e.g. a commit's listing).
func HoldsTerraform(files []string, dir string) bool {
	for _, f := range files {
		if path.Dir(f) == path.Clean(dir) && tffiles.IsConfig(path.Base(f)) {
			return true
		}
	}
	return false
}
