package policy

import (
	"context"
	"reflect"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
)

// TestEvalStoreDocs: data.tfgate's documents read every way a policy can reach them give
// what the `with` modifiers gave: by path, through data.tfgate as a whole (data as a whole is
// recursive in any rule), by array
// index, over a data file's own tfgate.project, and undefined where absent.
func TestEvalStoreDocs(t *testing.T) {
	files := map[string]string{
		"data.json": `{"tfgate": {"allow_delete": ["x"], "project": {"name": "from-file", "team": "t"}}, "other": {"k": 1}}`,
		"p.rego": `package p
warn contains sprintf("whole tfgate: %v %s %s %v", [x.allow_delete, x.project.name, x.author, x.risk.creates]) if x := data.tfgate
warn contains sprintf("index: %s", [data.tfgate.project.changed_files[0]]) if true
warn contains "file's project key hidden" if not data.tfgate.project.team
warn contains "missing index undefined" if not data.tfgate.project.changed_files[5]
`,
	}
	e := mustLoad(t, files)
	if e.withDocs {
		t.Fatal("policies define no tfgate document, yet the engine evaluates with `with`")
	}
	r := e.Eval(context.Background(), []byte(`{"resource_changes": []}`), Project{Name: "prod", ChangedFiles: []string{"main.tf"}, Author: "alice"})
	want := []string{
		"warn p.warn: file's project key hidden",
		"warn p.warn: index: main.tf",
		"warn p.warn: missing index undefined",
		`warn p.warn: whole tfgate: ["x"] prod alice 0`,
	}
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	if got := short(r.Findings); !reflect.DeepEqual(got, want) {
		t.Errorf("findings\n%q\nwant\n%q", got, want)
	}
}

// TestEvalStoreRuleThere: a policy defining a rule where a document goes (package tfgate,
// rule project) is evaluated with the `with` modifiers, which put the document over it.
func TestEvalStoreRuleThere(t *testing.T) {
	e := mustLoad(t, map[string]string{
		"t.rego": "package tfgate\nproject := {\"name\": \"rule\"}\n",
		"p.rego": "package p\nwarn contains data.tfgate.project.name if true\n",
	})
	if !e.withDocs {
		t.Fatal("a rule defines data.tfgate.project, yet the engine evaluates without `with`")
	}
	r := e.Eval(context.Background(), []byte(`{}`), Project{Name: "prod"})
	if got, want := short(r.Findings), []string{"warn p.warn: prod"}; r.Err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("findings %q (err %v), want %q", got, r.Err, want)
	}
}

// TestEvalStoreRoot: data read whole (a query can) has the documents laid over data.tfgate.
func TestEvalStoreRoot(t *testing.T) {
	ctx := context.Background()
	s := evalStore{inmem.NewFromObjectWithOpts(map[string]any{"tfgate": map[string]any{"allow_delete": []any{"x"}}, "other": 1}, inmem.OptReturnASTValuesOnRead(true))}
	txn, err := s.NewTransaction(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Abort(ctx, txn)
	docs := ast.MustParseTerm(`{"project": {"name": "p"}, "author": "a", "risk": {}}`).Value.(ast.Object)
	got, err := s.Read(withDocs(ctx, docs), txn, storage.Path{})
	want := ast.MustParseTerm(`{"other": 1, "tfgate": {"allow_delete": ["x"], "project": {"name": "p"}, "author": "a", "risk": {}}}`).Value
	if err != nil || ast.Compare(got, want) != 0 {
		t.Errorf("root: %v (err %v), want %v", got, err, want)
	}
	got, err = s.Read(ctx, txn, storage.Path{})
	want = ast.MustParseTerm(`{"other": 1, "tfgate": {"allow_delete": ["x"]}}`).Value
	if err != nil || ast.Compare(got, want) != 0 {
		t.Errorf("root outside an evaluation: %v (err %v), want %v", got, err, want)
	}
}
