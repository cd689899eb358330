package main

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The shape ARCHITECTURE.md promises: only cli and the per-command runners (pipeline) import
// more than 10 of tfgate's packages, drift knows nothing of GitHub or rendering, and gate
// imports only the rules, english and the report model: nothing that talks to GitHub, git
// or terraform, reads bundles or publishes.
func TestPackageGraph(t *testing.T) {
	const module = "github.com/tfgate/tfgate/internal/"
	imports := map[string][]string{}
	root := filepath.Join("..", "..", "internal")
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || strings.Contains(path, "testdata") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		pkg := filepath.ToSlash(rel)
		for _, spec := range f.Imports {
			p, _ := strconv.Unquote(spec.Path.Value)
			if dep, ok := strings.CutPrefix(p, module); ok && !contains(imports[pkg], dep) {
				imports[pkg] = append(imports[pkg], dep)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(imports) < 20 {
		t.Fatalf("read only %d packages under %s", len(imports), root)
	}
	for pkg, deps := range imports {
		sort.Strings(deps)
		if len(deps) > 10 && pkg != "cli" && pkg != "pipeline" {
			t.Errorf("%s imports %d internal packages (%s): only cli and the runners (pipeline) may import more than 10", pkg, len(deps), strings.Join(deps, ", "))
		}
	}
	for _, dep := range imports["drift"] {
		if dep == "github" || dep == "render" {
			t.Errorf("drift imports %s: it classifies drift and folds it back; notify publishes, render writes", dep)
		}
	}
	// gate may import only these: the rules, the words of its reasons, the verdict's state.
	gatePure := []string{"config", "english", "report"}
	for _, dep := range imports["gate"] {
		if !contains(gatePure, dep) {
			t.Errorf("gate imports %s: it is a pure function of the facts it is given, importing only %s", dep, strings.Join(gatePure, ", "))
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
