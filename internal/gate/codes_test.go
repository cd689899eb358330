package gate

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Every reason code is documented (the table in docs/gate-and-apply.md), and is one code
// only: a code is a stable name that machines read.
func TestCodesDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/gate-and-apply.md")
	if err != nil {
		t.Fatal(err)
	}
	codes := codeConstants(t)
	for code, name := range codes {
		if !strings.Contains(string(doc), "| `"+code+"` |") {
			t.Errorf("%s (%q) is not in the table of reason codes in docs/gate-and-apply.md", name, code)
		}
	}
	if len(codes) < 30 {
		t.Errorf("found %d codes; the parse missed some", len(codes))
	}
}

// codeConstants are the reason codes declared in the package's source (code → constant
// name); two constants of one code fail t.
func codeConstants(t *testing.T) map[string]string {
	t.Helper()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			vs, ok := n.(*ast.ValueSpec)
			if !ok || len(vs.Names) != 1 || !strings.HasPrefix(vs.Names[0].Name, "Code") || len(vs.Values) != 1 {
				return true
			}
			lit, ok := vs.Values[0].(*ast.BasicLit)
			if !ok {
				return true
			}
			code, _ := strconv.Unquote(lit.Value)
			if other, dup := seen[code]; dup {
				t.Errorf("%s and %s are both %q", other, vs.Names[0].Name, code)
			}
			seen[code] = vs.Names[0].Name
			return true
		})
	}
	return seen
}
