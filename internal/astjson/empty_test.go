package astjson

import (
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
)

// TestEmptyShared: every {} and every [] of a document is one term, and still the empty
// value it reads as.
func TestEmptyShared(t *testing.T) {
	v, err := Decode([]byte(`{"a": {}, "b": [], "c": {"d": {}, "e": [[], {}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := ast.MustParseTerm(`{"a": {}, "b": [], "c": {"d": {}, "e": [[], {}]}}`).Value
	if ast.Compare(v, want) != 0 {
		t.Fatalf("decoded %v, want %v", v, want)
	}
	obj := v.(ast.Object)
	c := obj.Get(ast.StringTerm("c")).Value.(ast.Object)
	e := c.Get(ast.StringTerm("e")).Value.(*ast.Array)
	if obj.Get(ast.StringTerm("a")) != c.Get(ast.StringTerm("d")) || obj.Get(ast.StringTerm("a")) != e.Elem(1) {
		t.Error("the document's {} are separate terms, want one")
	}
	if obj.Get(ast.StringTerm("b")) != e.Elem(0) {
		t.Error("the document's [] are separate terms, want one")
	}
}
