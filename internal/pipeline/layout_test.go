package pipeline

import (
	"go/ast"
	"go/token"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Each command's runner is where a newcomer guesses it: RunX in run_x.go (RunNotifyStale in
// run_notify_stale.go), one runner a file, and every run_*.go file holds its runner.
func TestRunnerFiles(t *testing.T) {
	fset := token.NewFileSet()
	runners := map[string]string{} // file → its runner
	for _, f := range parseNonTest(t, fset) {
		file := filepath.Base(fset.Position(f.Package).Filename)
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Run") || !fn.Name.IsExported() {
				continue
			}
			want := "run_" + snake(strings.TrimPrefix(fn.Name.Name, "Run")) + ".go"
			if file != want {
				t.Errorf("%s is in %s: a command's runner lives in %s", fn.Name.Name, file, want)
			}
			if other, dup := runners[file]; dup {
				t.Errorf("%s holds two runners, %s and %s", file, other, fn.Name.Name)
			}
			runners[file] = fn.Name.Name
		}
	}
	files, err := filepath.Glob("run_*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		if !strings.HasSuffix(file, "_test.go") && runners[file] == "" {
			t.Errorf("%s holds no runner: run_*.go is for a command's runner only", file)
		}
	}
	if len(runners) < 6 {
		t.Errorf("found only %d runners", len(runners))
	}
}

var wordStart = regexp.MustCompile(`([a-z0-9])([A-Z])`)

// snake is NotifyStale → notify_stale.
func snake(name string) string {
	return strings.ToLower(wordStart.ReplaceAllString(name, "${1}_${2}"))
}
