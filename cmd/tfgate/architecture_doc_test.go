package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

var updateArchitecture = flag.Bool("update-architecture", false, "rewrite ARCHITECTURE.md's package graph")

// testOnly are the packages for tests (and make bench) only: the package graph leaves them
// out, and no other package may import them (TestArchitectureDoc checks it).
var testOnly = []string{"bench", "e2e", "github/githubtest", "golden", "mermaidcheck", "plan/plangen", "testenv", "testprovider", "testprovider/cmd/terraform-provider-fakecloud"}

// ARCHITECTURE.md is checked, not hand-kept: its package graph is generated from the
// imports (go test -run TestArchitectureDoc -update-architecture rewrites it), every package
// is in its table of packages, every file it names exists in the package its row names, and
// every Go name it gives is declared there.
func TestArchitectureDoc(t *testing.T) {
	imports := packageImports(t)
	doc, err := os.ReadFile(filepath.Join("..", "..", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	for pkg, deps := range imports {
		for _, dep := range deps {
			if slices.Contains(testOnly, dep) && !slices.Contains(testOnly, pkg) {
				t.Errorf("%s imports %s, which ARCHITECTURE.md calls for tests only", pkg, dep)
			}
		}
	}
	t.Run("package graph", func(t *testing.T) { checkGraph(t, text, imports) })
	t.Run("packages", func(t *testing.T) { checkPackagesListed(t, text, imports) })
	t.Run("where things live", func(t *testing.T) { checkNamesExist(t, text, imports) })
}

// packageImports is each package under internal/ (and cmd/tfgate) with the packages of
// tfgate's own it imports outside tests, sorted.
func packageImports(t *testing.T) map[string][]string {
	t.Helper()
	const module = "github.com/tfgate/tfgate/internal/"
	imports := map[string][]string{}
	add := func(root, prefix string) {
		err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || strings.Contains(path, "testdata") {
				return err
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, filepath.Dir(path))
			pkg := strings.TrimSuffix(prefix+filepath.ToSlash(rel), "/.")
			if _, ok := imports[pkg]; !ok {
				imports[pkg] = []string{}
			}
			for _, spec := range f.Imports {
				p := strings.Trim(spec.Path.Value, `"`)
				if dep, ok := strings.CutPrefix(p, module); ok && !slices.Contains(imports[pkg], dep) {
					imports[pkg] = append(imports[pkg], dep)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	add(filepath.Join("..", "..", "internal"), "")
	add(".", "cmd/tfgate/")
	if len(imports) < 20 {
		t.Fatalf("read only %d packages", len(imports))
	}
	for _, deps := range imports {
		sort.Strings(deps)
	}
	return imports
}

// graphTable is the package graph's table as ARCHITECTURE.md shows it: the packages most
// importing first, then by name; test-only packages left out.
func graphTable(imports map[string][]string) string {
	var pkgs []string
	for pkg := range imports {
		if !slices.Contains(testOnly, pkg) {
			pkgs = append(pkgs, pkg)
		}
	}
	sort.Slice(pkgs, func(i, j int) bool {
		a, b := len(imports[pkgs[i]]), len(imports[pkgs[j]])
		if a != b {
			return a > b
		}
		return pkgs[i] < pkgs[j]
	})
	var b strings.Builder
	b.WriteString("| package | count | imports |\n|---|---|---|\n")
	for _, pkg := range pkgs {
		deps := strings.Join(imports[pkg], ", ")
		if deps == "" {
			deps = "—"
		}
		fmt.Fprintf(&b, "| `%s` | %d | %s |\n", pkg, len(imports[pkg]), deps)
	}
	return b.String()
}

func checkGraph(t *testing.T, doc string, imports map[string][]string) {
	const head = "| package | count | imports |"
	start := strings.Index(doc, head)
	if start < 0 {
		t.Fatalf("ARCHITECTURE.md has no package graph table (%q)", head)
	}
	end := start
	for end < len(doc) {
		nl := strings.IndexByte(doc[end:], '\n')
		if nl < 0 {
			end = len(doc)
			break
		}
		if !strings.HasPrefix(doc[end:], "|") {
			break
		}
		end += nl + 1
	}
	want := graphTable(imports)
	if doc[start:end] == want {
		return
	}
	if *updateArchitecture {
		path := filepath.Join("..", "..", "ARCHITECTURE.md")
		if err := os.WriteFile(path, []byte(doc[:start]+want+doc[end:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("ARCHITECTURE.md's package graph is not the imports' (go test ./cmd/tfgate -run TestArchitectureDoc -update-architecture rewrites it); it should read:\n%s", want)
}

// section is the text of ARCHITECTURE.md under the heading that starts with title, up to
// the next heading of its level.
func section(t *testing.T, doc, title string) string {
	t.Helper()
	i := strings.Index(doc, "\n## "+title)
	if i < 0 {
		t.Fatalf("ARCHITECTURE.md has no section %q", title)
	}
	rest := doc[i+4:]
	if j := strings.Index(rest, "\n## "); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

var codeSpan = regexp.MustCompile("`([^`]+)`")

func checkPackagesListed(t *testing.T, doc string, imports map[string][]string) {
	listed := map[string]bool{}
	for _, line := range strings.Split(section(t, doc, "Packages"), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 3 {
			continue
		}
		for _, m := range codeSpan.FindAllStringSubmatch(cells[1], -1) {
			listed[m[1]] = true
		}
	}
	for pkg := range imports {
		if !listed[pkg] && !strings.HasPrefix(pkg, "testprovider/") {
			t.Errorf("package %s is missing from ARCHITECTURE.md's table of packages", pkg)
		}
	}
	for name := range listed {
		if _, ok := imports[name]; !ok {
			t.Errorf("ARCHITECTURE.md's table of packages names %s, which is not a package", name)
		}
	}
}

// goName is a Go identifier worth checking: a name with an upper-case letter (changeRequestBlocks,
// RunPlan), not a config key (min_approvals) or a plain word.
var goName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]*[A-Z][A-Za-z0-9]*$|^[A-Z][A-Za-z0-9]*$`)

// checkNamesExist reads "Where things live": in each row's second cell, a package named in
// backticks is where the files (x.go) and Go names after it are; "pkg/x.go" names its own
// package, and the names after it are that package's.
func checkNamesExist(t *testing.T, doc string, imports map[string][]string) {
	decls := map[string]map[string]bool{}
	declared := func(pkg, name string) bool {
		if decls[pkg] == nil {
			decls[pkg] = declNames(t, pkg)
		}
		return decls[pkg][name]
	}
	checked := 0
	for _, line := range strings.Split(section(t, doc, "Where things live"), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 4 || strings.HasPrefix(strings.TrimSpace(cells[1]), "---") {
			continue
		}
		pkg := ""
		for _, m := range codeSpan.FindAllStringSubmatch(cells[2], -1) {
			span := m[1]
			switch {
			case imports[span] != nil:
				pkg = span
			case strings.HasSuffix(span, ".go"):
				dir, file := pkg, span
				if d, f, ok := cutLast(span, "/"); ok && imports[d] != nil {
					dir, file, pkg = d, f, d // the names after it are its package's
				}
				if found, _ := filepath.Glob(filepath.Join("..", "..", "internal", dir, file)); len(found) == 0 {
					t.Errorf("ARCHITECTURE.md names %s in %s, which does not exist (row %q)", file, dir, strings.TrimSpace(cells[1]))
				}
				checked++
			case goName.MatchString(span) && pkg != "":
				if !declared(pkg, span) {
					t.Errorf("ARCHITECTURE.md names %s in %s, which declares no such name", span, pkg)
				}
				checked++
			}
		}
	}
	if checked < 20 {
		t.Errorf("checked only %d names of ARCHITECTURE.md's \"Where things live\"", checked)
	}
}

func cutLast(s, sep string) (string, string, bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return "", s, false
	}
	return s[:i], s[i+len(sep):], true
}

// declNames is every top-level name and method of the package, its tests' included (the
// document may point at a test that holds a rule).
func declNames(t *testing.T, pkg string) map[string]bool {
	t.Helper()
	names := map[string]bool{}
	dir := filepath.Join("..", "..", "internal", pkg)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, e.Name()), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				names[d.Name.Name] = true
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						names[s.Name.Name] = true
					case *ast.ValueSpec:
						for _, n := range s.Names {
							names[n.Name] = true
						}
					}
				}
			}
		}
	}
	return names
}
