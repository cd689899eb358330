package policy

import (
	"context"
	"strconv"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/storage"
)

// The documents tfgate gives each evaluation (data.tfgate.project, .author and .risk) are
// read from the store, as the policies' own data is, rather than put in place by `with`
// modifiers, which make OPA's evaluation of a large plan markedly slower (see
// BenchmarkEvalValue10k). The store serves them from the evaluation's context, so one
// immutable store still serves every evaluation running at once.

// tfgateDocs are the keys of data.tfgate an evaluation's context supplies.
var tfgateDocs = []string{"project", "author", "risk"}

// evalDocsKey carries an evaluation's documents (an object of tfgateDocs) in its context.
type evalDocsKey struct{}

// withDocs returns ctx carrying docs for the store to serve as data.tfgate's documents.
func withDocs(ctx context.Context, docs ast.Object) context.Context {
	return context.WithValue(ctx, evalDocsKey{}, docs)
}

// evalStore is the policies' data (an inmem store returning ast values) with the
// documents of the evaluation reading it laid over data.tfgate. Reads made outside an
// evaluation (compiling, preparing) see the data alone.
type evalStore struct {
	storage.Store
}

func (s evalStore) Read(ctx context.Context, txn storage.Transaction, path storage.Path) (any, error) {
	docs, _ := ctx.Value(evalDocsKey{}).(ast.Object)
	if docs == nil || (len(path) > 0 && path[0] != "tfgate") {
		return s.Store.Read(ctx, txn, path)
	}
	if len(path) >= 2 {
		if doc := docs.Get(ast.StringTerm(path[1])); doc != nil {
			return descend(doc.Value, path, 2)
		}
		return s.Store.Read(ctx, txn, path)
	}
	// data or data.tfgate as a whole: the data there with the documents laid over it.
	tfgate, err := s.Store.Read(ctx, txn, storage.Path{"tfgate"})
	if err != nil && !storage.IsNotFound(err) {
		return nil, err
	}
	over := overlay(tfgate, docs)
	if len(path) == 1 {
		return over, nil
	}
	root, err := s.Store.Read(ctx, txn, path)
	if err != nil {
		return nil, err
	}
	return overlay(root, ast.NewObject([2]*ast.Term{ast.StringTerm("tfgate"), ast.NewTerm(over)})), nil
}

// overlay is the object base (when it is one) with the members of over set over its own.
func overlay(base any, over ast.Object) ast.Object {
	obj, _ := base.(ast.Object)
	if obj == nil {
		return over
	}
	pairs := make([][2]*ast.Term, 0, obj.Len()+over.Len())
	obj.Foreach(func(k, v *ast.Term) {
		if over.Get(k) == nil {
			pairs = append(pairs, [2]*ast.Term{k, v})
		}
	})
	over.Foreach(func(k, v *ast.Term) { pairs = append(pairs, [2]*ast.Term{k, v}) })
	return ast.NewObject(pairs...)
}

// descend follows path from its element at into v, as the inmem store does: object keys,
// array indexes in decimal; what is not there is storage's not-found error.
func descend(v ast.Value, path storage.Path, at int) (ast.Value, error) {
	for _, seg := range path[at:] {
		var next *ast.Term
		switch t := v.(type) {
		case ast.Object:
			next = t.Get(ast.StringTerm(seg))
		case *ast.Array:
			if i, err := strconv.Atoi(seg); err == nil && i >= 0 && i < t.Len() {
				next = t.Elem(i)
			}
		}
		if next == nil {
			return nil, &storage.Error{Code: storage.NotFoundErr, Message: path.String() + ": document missing"}
		}
		v = next.Value
	}
	return v, nil
}

// definesTfgateDocs reports whether some rule may define one of tfgateDocs (a policy with
// package tfgate and a rule named project, say): a rule there would hide the evaluation's
// document, which the `with` modifiers override, so such policies are evaluated with them.
func definesTfgateDocs(c *ast.Compiler) bool {
	for _, name := range tfgateDocs {
		ref := ast.MustParseRef("data.tfgate." + name)
		if len(c.GetRules(ref)) > 0 || len(c.GetRulesWithPrefix(ref)) > 0 {
			return true
		}
	}
	return false
}
