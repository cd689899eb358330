package main

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The shape ARCHITECTURE.md promises: only cli and the per-command runners (pipeline) import
// more than 10 of tfgate's packages, drift knows nothing of GitHub or rendering, and gate
// imports only the rules, english and the report model: nothing that talks to GitHub, git
// or terraform, reads bundles or publishes.
func TestPackageGraph(t *testing.T) {
	imports := packageImports(t)
	for pkg, deps := range imports {
		// english is words (plurals, lists, short commit names) and imports nothing: like
		// strings, it couples a package to no domain, so it does not count.
		domains := slices.DeleteFunc(slices.Clone(deps), func(d string) bool { return d == "english" })
		if len(domains) > 10 && pkg != "cli" && pkg != "pipeline" {
			t.Errorf("%s imports %d internal packages besides english (%s): only cli and the runners (pipeline) may import more than 10", pkg, len(domains), strings.Join(domains, ", "))
		}
	}
	for _, dep := range imports["drift"] {
		if dep == "github" || dep == "render" {
			t.Errorf("drift imports %s: it classifies drift and folds it back; notify publishes, render writes", dep)
		}
	}
	// gate may import only these: the rules, the words of its reasons, the plan model it
	// compares (a re-plan, a manifest), the verdict's state.
	gatePure := []string{"config", "english", "plan", "report"}
	for _, dep := range imports["gate"] {
		if !contains(gatePure, dep) {
			t.Errorf("gate imports %s: it is a pure function of the facts it is given, importing only %s", dep, strings.Join(gatePure, ", "))
		}
	}
	// Nor does it reach the world through the standard library.
	files, err := filepath.Glob(filepath.Join("..", "..", "internal", "gate", "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no gate sources: %v", err)
	}
	io := []string{"os", "os/exec", "os/signal", "net", "net/http", "io/fs", "io/ioutil", "path/filepath", "syscall", "database/sql", "log", "log/slog", "math/rand", "math/rand/v2", "crypto/rand"}
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, spec := range f.Imports {
			if p, _ := strconv.Unquote(spec.Path.Value); contains(io, p) {
				t.Errorf("%s imports %s: gate does no I/O", filepath.Base(file), p)
			}
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
