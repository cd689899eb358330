package pipeline

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Every refusal is decided and worded in internal/gate: pipeline gathers the facts, passes
// them to gate's judgements (gate.Evaluate, AcceptBundle, AcceptPlanFile, CheckManifest,
// Replan, …) and acts on the reasons they return. So in pipeline's own code (its tests
// aside):
//
//   - no gate.Reason or report.Reason is built as a composite literal (nor as an element
//     of a []gate.Reason literal): a reason comes from gate, or is converted from one;
//   - no gate.Code* constant is named: the code is chosen with the words, in gate;
//   - report.StatusRefused is only compared with, never set, except in review.refuse, which
//     refuses a project for reasons it is given (gate's);
//   - a merge queue group's problem is set only from gate's words (gate.GroupUnlisted, …);
//   - no verdict's state (report.Gate*) is chosen in a literal: the run's status is gate's
//     (Verdict.State, Overrule, UncoveredReview, QueueGroup, NothingChanged).
//
// Like TestPackageGraph in cmd/tfgate, it reads the source: a new rule written here instead
// of in gate fails it.
func TestRefusalsAreTheGates(t *testing.T) {
	fset := token.NewFileSet()
	files := parseNonTest(t, fset)
	if len(files) < 30 {
		t.Fatalf("parsed %d files of pipeline; the parse missed some", len(files))
	}
	for _, f := range files {
		for _, decl := range f.Decls {
			fn := "(top level)"
			if fd, ok := decl.(*ast.FuncDecl); ok {
				fn = fd.Name.Name
			}
			ast.Inspect(decl, func(n ast.Node) bool {
				where := func() string { return fset.Position(n.Pos()).String() + " (" + fn + ")" }
				switch n := n.(type) {
				case *ast.CompositeLit:
					switch typ := selector(n.Type); {
					case typ == "gate.Reason" || typ == "report.Reason":
						t.Errorf("%s builds a %s: refusals are worded in gate", where(), typ)
					default:
						if at, ok := n.Type.(*ast.ArrayType); ok && selector(at.Elt) == "gate.Reason" && slices.ContainsFunc(n.Elts, isLiteral) {
							t.Errorf("%s builds a gate.Reason in a []gate.Reason: refusals are worded in gate", where())
						}
					}
				case *ast.SelectorExpr:
					if name := selector(n); strings.HasPrefix(name, "gate.Code") {
						t.Errorf("%s names %s: the code of a refusal is chosen in gate, with its words", where(), name)
					}
				case *ast.AssignStmt:
					for i, lhs := range n.Lhs {
						if sel, ok := lhs.(*ast.SelectorExpr); ok && sel.Sel.Name == "problem" && i < len(n.Rhs) && !gateCall(n.Rhs[i]) {
							t.Errorf("%s words a merge queue group's problem: its words are gate's", where())
						}
					}
					for _, rhs := range n.Rhs {
						if selector(rhs) == "report.StatusRefused" && fn != "refuse" {
							t.Errorf("%s sets report.StatusRefused: only refuse refuses, for gate's reasons", where())
						}
						if state := selector(rhs); strings.HasPrefix(state, "report.Gate") {
							t.Errorf("%s chooses the verdict's state %s: the state comes from gate's verdict", where(), state)
						}
					}
				case *ast.KeyValueExpr:
					if key, ok := n.Key.(*ast.Ident); ok && key.Name == "problem" && !gateCall(n.Value) {
						t.Errorf("%s words a merge queue group's problem: its words are gate's", where())
					}
					if selector(n.Value) == "report.StatusRefused" {
						t.Errorf("%s sets report.StatusRefused in a literal: only refuse refuses, for gate's reasons", where())
					}
					if state := selector(n.Value); strings.HasPrefix(state, "report.Gate") {
						t.Errorf("%s chooses the verdict's state %s: the state comes from gate's verdict", where(), state)
					}
				}
				return true
			})
		}
	}
}

// gateCall reports whether e is a call of one of gate's functions.
func gateCall(e ast.Expr) bool {
	call, ok := e.(*ast.CallExpr)
	return ok && strings.HasPrefix(selector(call.Fun), "gate.")
}

func isLiteral(e ast.Expr) bool { _, ok := e.(*ast.CompositeLit); return ok }

// parseNonTest parses the package's Go files, its tests aside.
func parseNonTest(t *testing.T, fset *token.FileSet) []*ast.File {
	t.Helper()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}

// selector is "pkg.Name" for a qualified identifier, "" for anything else.
func selector(e ast.Expr) string {
	s, ok := e.(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	id, ok := s.X.(*ast.Ident)
	if !ok {
		return ""
	}
	return id.Name + "." + s.Sel.Name
}
