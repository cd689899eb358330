package plan

import (
	"testing"

	"github.com/tfgate/tfgate/internal/astjson"
)

// Open with Reads must keep exactly astjson.Prune of the whole decoded plan, and harvest
// the same secrets as Open without Reads, whatever the shape of the pruned member.
func TestAuditOpenPrunedLikePrune(t *testing.T) {
	reads := func() *astjson.Paths {
		p := astjson.NoPaths()
		p.Add([]astjson.Seg{{Key: "resource_changes"}, {Any: true}, {Key: "type"}}, true)
		p.Add([]astjson.Seg{{Key: "resource_changes"}, {Any: true}, {Key: "change"}, {Key: "after"}}, false)
		p.Add([]astjson.Seg{{Key: "format_version"}}, true)
		return p
	}
	docs := map[string]string{
		"normal": `{"format_version":"1.2","resource_changes":[{"address":"a.b","type":"a","change":{"actions":["create"],"before":null,"after":{"k":"v"},"after_sensitive":{"k":true}}}]}`,
		"null":   `{"format_version":"1.2","planned_values":{},"resource_changes":null}`,
		"empty":  `{"format_version":"1.2","resource_changes":[]}`,
		"spaces": `{"format_version":"1.2","resource_changes":  [ {"type":"a","change":{"after":"s","after_sensitive":true}} ] }`,
		"duplicate member": `{"format_version":"1.2","resource_changes":[{"type":"first","change":{"after":{"p":"dup-secret-1"},"after_sensitive":{"p":true}}}],
			"resource_changes":[{"type":"second","change":{"after":{"p":"dup-secret-2"},"after_sensitive":{"p":true}}}]}`,
		"nulls in array":    `{"format_version":"1.2","resource_changes":[null,{"type":"a"}]}`,
		"object, not array": `{"format_version":"1.2","resource_changes":{"x":{"type":"a"}}}`,
		"string element":    `{"format_version":"1.2","resource_changes":["delete"]}`,
		"malformed element": `{"format_version":"1.2","resource_changes":[{"type":"a",}]}`,
		"missing comma":     `{"format_version":"1.2","resource_changes":[{"type":"a"} {"type":"b"}]}`,
		"trailing comma":    `{"format_version":"1.2","resource_changes":[{"type":"a"},]}`,
		"bad actions":       `{"format_version":"1.2","resource_changes":[{"type":"a","change":{"actions":"delete"}}]}`,
	}
	for name, doc := range docs {
		t.Run(name, func(t *testing.T) {
			d, err := Open([]byte(doc), OpenOptions{Reads: reads()})
			full, ferr := Open([]byte(doc), OpenOptions{})
			if (err == nil) != (ferr == nil) || err != nil && err.Error() != ferr.Error() {
				t.Fatalf("Open with Reads: %v; without: %v", err, ferr)
			}
			if err != nil {
				t.Logf("both refuse: %v", err)
				return
			}
			whole, err := astjson.Decode([]byte(doc))
			if err != nil {
				t.Fatal(err)
			}
			want := astjson.Prune(whole, withShapes(reads())) // the parts shapeOK checks are kept too
			if d.Input().Compare(want) != 0 {
				t.Errorf("Open kept %v\nPrune gives %v", d.Input(), want)
			}
			if _, td, err := ReadDocument([]byte(doc), Options{}, reads()); err != nil {
				t.Errorf("ReadDocument: %v", err)
			} else if td.Input().Compare(want) != 0 {
				t.Errorf("ReadDocument kept %v\nPrune gives %v", td.Input(), want)
			}
			for _, s := range []string{"dup-secret-1", "dup-secret-2", "value v", "value s"} {
				if a, b := d.Masker().String(s), full.Masker().String(s); a != b {
					t.Errorf("mask %q: pruned %q, whole %q", s, a, b)
				} else if a != s {
					t.Logf("mask %q: %q", s, a)
				}
			}
		})
	}
}
