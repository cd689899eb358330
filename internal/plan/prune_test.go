package plan

import (
	"sync"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/tfgate/tfgate/internal/astjson"
	"github.com/tfgate/tfgate/internal/plan/plangen"
)

// A member the policies read part of is kept exactly as astjson.Prune keeps it of the whole
// decoded plan (with the parts shapeOK checks), whatever its shape, and its secrets are
// harvested as when it is kept whole.
func TestOpenPrunesAsPrune(t *testing.T) {
	docs := map[string][]byte{
		"generated":     plangen.Generate(40),
		"empty":         []byte(`{"format_version":"1.2","resource_changes":[]}`),
		"null":          []byte(`{"format_version":"1.2","resource_changes":null,"output_changes":{}}`),
		"repeated key":  []byte(`{"format_version":"1.2","resource_changes":[{"type":"a","type":"b","change":{"actions":["create"],"after":{"tags":{"x":"1"}},"after_sensitive":{"tags":{"x":true}}}}]}`),
		"not an object": []byte(`{"format_version":"1.2","resource_changes":[1,"two",null,[3]]}`),
		"actions text":  []byte(`{"format_version":"1.2","resource_changes":[{"type":"a","change":{"actions":"delete"}}]}`),
		"name number":   []byte(`{"format_version":"1.2","resource_changes":[{"type":"a","name":7,"change":{"actions":["delete"]}}]}`),
	}
	for name, data := range docs {
		t.Run(name, func(t *testing.T) {
			whole, err := astjson.Decode(data)
			if err != nil {
				t.Fatal(err)
			}
			kept, keptErr := Open(data, OpenOptions{Reads: readsKeys("resource_changes")})
			for _, typed := range []bool{false, true} {
				reads := readsTypes()
				d, err := open(data, reads, typed)
				if keptErr != nil || err != nil { // refused alike: a shape terraform never writes
					if keptErr == nil || err == nil || err.Error() != keptErr.Error() {
						t.Fatalf("typed %v: pruned %v, whole %v", typed, err, keptErr)
					}
					continue
				}
				want := astjson.Prune(whole, withShapes(readsTypes()))
				if ast.Compare(d.Input(), want) != 0 {
					t.Errorf("typed %v: input\n%v\nwant\n%v", typed, d.Input(), want)
				}
				if !typed {
					sameHarvest(t, "pruned", d.h, kept.h)
				}
			}
		})
	}
}

// withShapes is p with the parts of each resource change that shapeOK checks.
func withShapes(p *astjson.Paths) *astjson.Paths {
	for _, f := range resourceChangeFields {
		p.Add(append([]astjson.Seg{{Key: "resource_changes"}, {Any: true}}, dotted(f)...), false)
	}
	return p
}

// Open is done with a part of the text once it gives it to Release: a part overwritten
// there changes nothing of what Open returns, and most of a large plan is given back.
func TestOpenReleasesWhatItRead(t *testing.T) {
	data := plangen.Generate(200)
	want, err := Open(data, OpenOptions{Reads: readsTypes()})
	if err != nil {
		t.Fatal(err)
	}
	text := append([]byte(nil), data...)
	var mu sync.Mutex
	released := 0
	got, err := Open(text, OpenOptions{Reads: readsTypes(), Release: func(part []byte) {
		mu.Lock()
		defer mu.Unlock()
		released += len(part)
		for i := range part {
			part[i] = 'x' // read again, this would be malformed
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if ast.Compare(got.Input(), want.Input()) != 0 {
		t.Errorf("input\n%v\nwant\n%v", got.Input(), want.Input())
	}
	sameHarvest(t, "released", got.h, want.h)
	if released < len(data)*9/10 {
		t.Errorf("released %d of %d bytes", released, len(data))
	}
}
