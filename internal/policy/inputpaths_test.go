package policy

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/tfgate/tfgate/internal/astjson"
	"github.com/tfgate/tfgate/internal/plan/plangen"
)

// pruneInput is a plan that tells pruned reads apart: values that differ between before
// and after, false beside missing, keys with dots, nested lists, a secret-looking string.
const pruneInput = `{
  "format_version": "1.2",
  "resource_changes": [
    {"address": "aws_s3_bucket.a", "mode": "managed", "type": "aws_s3_bucket", "name": "a",
     "change": {"actions": ["update"],
       "before": {"acl": "private", "flag": true, "tags": {"owner": "x", "a.b": "1"}, "list": ["p", "q"], "n": 1},
       "after": {"acl": "public-read", "flag": false, "p": "project-key", "tags": {"owner": "y"}, "list": ["p"], "n": 2, "blob": {"k": "v"}},
       "after_unknown": {"id": true}}},
    {"address": "module.m.aws_db_instance.b", "mode": "managed", "type": "aws_db_instance", "name": "b",
     "change": {"actions": ["delete", "create"],
       "before": {"password": "hunter2", "flag": false, "tags": {}},
       "after": {"password": "hunter2", "tags": null, "list": []},
       "after_unknown": {}}},
    {"address": "data.x.c", "mode": "data", "type": "x", "name": "c",
     "change": {"actions": ["read"], "before": null, "after": {"flag": true}}}
  ],
  "output_changes": {"o": {"actions": ["create"], "before": null, "after": "s"}},
  "variables": {"v": {"value": "w"}}
}`

// pruneCases are policies that read input in every way the analysis follows, and in the
// ways it must read whole. Each must judge the pruned input as it judges the whole one.
var pruneCases = map[string]string{
	"attribute":         `deny contains rc.address if { some rc in input.resource_changes; rc.change.after.acl == "public-read" }`,
	"object keys":       `deny contains k if { some rc in input.resource_changes; some k, _ in rc.change.after }`,
	"count object":      `deny contains rc.address if { some rc in input.resource_changes; is_object(rc.change.before); count(rc.change.before) == 3 }`,
	"count array":       `deny contains rc.address if { some rc in input.resource_changes; count(rc.change.after.list) == 1 }`,
	"count string":      `deny contains rc.address if { some rc in input.resource_changes; count(rc.change.after.acl) > 5 }`,
	"walk":              `deny contains concat(".", [sprintf("%v", [x]) | some x in p]) if { walk(input, [p, v]); v == "hunter2" }`,
	"object.get path":   `deny contains rc.address if { some rc in input.resource_changes; k := "owner"; is_object(rc.change.before); object.get(rc.change.before, ["tags", k], "none") == "x" }`,
	"object.get var":    `deny contains rc.address if { some rc in input.resource_changes; p := ["tags", "owner"]; is_object(rc.change.before); object.get(rc.change.before, p, "none") == "x" }`,
	"object.keys":       `deny contains sprintf("%v", [object.keys(rc.change.after)]) if { some rc in input.resource_changes }`,
	"json.marshal":      `deny contains json.marshal(rc.change) if { some rc in input.resource_changes }`,
	"whole compare":     `deny contains rc.address if { some rc in input.resource_changes; rc.change.before != rc.change.after }`,
	"set dedupe":        `deny contains "one" if { count({rc.change.after.flag | some rc in input.resource_changes}) == 2 }`,
	"set of rcs":        `deny contains "n" if { s := {rc | some rc in input.resource_changes}; count(s) == 3 }`,
	"whole package":     `deny contains x.change.before.password if { d := data.q; some x in d.changes }` + "\n---\npackage q\nchanges := [rc | some rc in input.resource_changes]",
	"partial object":    `by[rc.address] := rc if { some rc in input.resource_changes }` + "\n" + `deny contains a if { some a, rc in by; rc.change.before.password == "hunter2" }`,
	"ref head":          `a.b[rc.name] := rc.change if { some rc in input.resource_changes }` + "\n" + `deny contains k if { some k, c in a.b; c.before.n == 1 }`,
	"else":              `pick(rc) := rc.change.before if { rc.mode == "managed" } else := rc.change.after` + "\n" + `deny contains rc.address if { some rc in input.resource_changes; pick(rc).flag == false }`,
	"pattern param":     `f({"type": t}) := t` + "\n" + `deny contains x if { some rc in input.resource_changes; x := f(rc) }`,
	"identity function": `id(x) := x` + "\n" + `deny contains rc.address if { some rc in input.resource_changes; id(rc).change.before.password }`,
	"two call sites":    `g(x) := x.acl` + "\n" + `deny contains v if { some rc in input.resource_changes; v := g(rc.change.before) }` + "\n" + `deny contains v if { some rc in input.resource_changes; v := g(rc.change.after) }`,
	"every":             `deny contains rc.address if { some rc in input.resource_changes; every a in rc.change.actions { a != "read" } }`,
	"not false":         `deny contains rc.address if { some rc in input.resource_changes; not rc.change.after.flag }`,
	"truthy":            `deny contains rc.address if { some rc in input.resource_changes; rc.change.before.flag }`,
	"with input":        `deny contains "w" if { x with input as {"resource_changes": []} }` + "\n" + `x if { count(input.resource_changes) == 0 }`,
	"with data":         `deny contains y if { y := z with data.p.q as input.resource_changes[0].change.before }` + "\n" + `q := {}` + "\n" + `z := json.marshal(q)`,
	"input computed":    `deny contains k if { some k, v in input; k == "variables"; v.v.value == "w" }`,
	"numeric index":     `deny contains "i" if { input.resource_changes[1].change.before.password == "hunter2" }`,
	"array pattern":     `deny contains b if { some rc in input.resource_changes; [a, b] = rc.change.actions; a == "delete" }`,
	"object pattern":    `deny contains p if { some rc in input.resource_changes; {"password": p, "flag": false, "tags": {}} = rc.change.before }`,
	"length":            `deny contains rc.address if { some rc in input.resource_changes; count(rc.change.actions) == 2 }`,
	"index":             `deny contains rc.address if { some rc in input.resource_changes; rc.change.actions[1] == "create" }`,
	"type only":         `deny contains rc.address if { some rc in input.resource_changes; is_object(rc.change.after.blob) }`,
	"type name":         `deny contains sprintf("%s %s", [rc.address, type_name(rc.change.after.tags)]) if { some rc in input.resource_changes }`,
	"comprehension":     `deny contains x if { xs := [rc | some rc in input.resource_changes; rc.mode == "managed"]; x := xs[_].change.before.acl }`,
	"nested":            `deny contains x if { xs := [[rc] | some rc in input.resource_changes]; x := sprintf("%v", [xs[_][_].change.after.n]) }`,
	"object.union":      `deny contains x if { some rc in input.resource_changes; x := object.union(rc.change.after, {})["acl"] }`,
	"array.concat":      `deny contains x.address if { xs := array.concat([rc | some rc in input.resource_changes], []); some x in xs; x.change.before.n == 1 }`,
	"iterate list":      `deny contains rc.address if { some rc in input.resource_changes; some i; rc.change.before.list[i] == "q" }`,
	"dotted key":        `deny contains v if { some rc in input.resource_changes; v := rc.change.before.tags["a.b"] }`,
	"exists only":       `deny contains rc.address if { some rc in input.resource_changes; _ = rc.change.after.blob.k }`,
	"exists then value": `deny contains v if { some rc in input.resource_changes; _ = rc.change.before.acl; v := rc.change.before.acl }`,
	"print":             `deny contains "p" if { some rc in input.resource_changes; print(rc.change.after); false }`,
	"outputs":           `deny contains k if { some k, o in input.output_changes; o.after == "s" }`,
	"rule value":        `first := input.resource_changes[0]` + "\n" + `deny contains first.change.after.acl if { true }`,
	"default":           `default v := "none"` + "\n" + `v := input.resource_changes[0].change.after.acl` + "\n" + `deny contains v if { true }`,
	"sprintf whole":     `deny contains sprintf("%v", [rc.change.after]) if { some rc in input.resource_changes }`,
	"sort":              `deny contains concat(",", sort(object.keys(rc.change.before))) if { some rc in input.resource_changes; is_object(rc.change.before) }`,
	"in":                `deny contains rc.address if { some rc in input.resource_changes; "p" in rc.change.after.list }`,
	"key in":            `deny contains rc.address if { some rc in input.resource_changes; "acl" in object.keys(rc.change.after) }`,
	"constant keys":     "attrs := {\"aws\": [\"tags\"], \"gcp\": [\"labels\"]}\n" + `deny contains rc.address if { some rc in input.resource_changes; some at in attrs[_]; rc.change.after[at].owner == "y" }`,
	"constant index":    "attrs := [\"acl\", \"n\"]\n" + `deny contains sprintf("%v", [v]) if { some rc in input.resource_changes; v := rc.change.after[attrs[1]] }`,
	"constant replaced": "keys := [\"acl\"]\n" + `deny contains sprintf("%v", [v]) if { some rc in input.resource_changes; v := rc.change.after[keys[0]] with data.p.keys as ["n"] }`,
	"project constant":  `deny contains v if { some rc in input.resource_changes; v := rc.change.after[data.tfgate.project.name] }` + "\n---\npackage tfgate\nproject := {\"name\": \"acl\"}",
	"constant default":  "default k := \"acl\"\nk := \"n\" if { input.resource_changes[0].mode == \"managed\" }\n" + `deny contains sprintf("%v", [v]) if { some rc in input.resource_changes; v := rc.change.after[k] }`,
	"equal arrays":      `deny contains rc.address if { some rc in input.resource_changes; rc.change.actions == ["delete", "create"] }`,
}

// A pruned input is judged as the whole one, for every case and for the default library.
func TestPrunedInputJudgedAsWhole(t *testing.T) {
	for name, body := range pruneCases {
		t.Run(name, func(t *testing.T) {
			e, err := Load(context.Background(), Source{FS: caseFS(body), Paths: []string{"."}}, Options{PrintWriter: &strings.Builder{}})
			if err != nil {
				t.Fatal(err)
			}
			samePrunedVerdict(t, e, []byte(pruneInput))
		})
	}
	t.Run("default library", func(t *testing.T) {
		e, err := Load(context.Background(), Source{FS: os.DirFS("../.."), Paths: []string{"policies"}}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		samePrunedVerdict(t, e, []byte(pruneInput))
		samePrunedVerdict(t, e, plangen.Generate(300))
	})
	t.Run("bench policies", func(t *testing.T) {
		e, err := Load(context.Background(), benchPolicies, Options{})
		if err != nil {
			t.Fatal(err)
		}
		samePrunedVerdict(t, e, []byte(pruneInput))
		samePrunedVerdict(t, e, plangen.Generate(300))
	})
}

// caseFS holds a case's policy: package p, then any further modules after "---" lines.
func caseFS(body string) fstest.MapFS {
	parts := strings.Split(body, "\n---\n")
	fsys := fstest.MapFS{"p.rego": {Data: []byte("package p\n\n" + parts[0] + "\n")}}
	for i, m := range parts[1:] {
		fsys[fmt.Sprintf("m%d.rego", i)] = &fstest.MapFile{Data: []byte(m + "\n")}
	}
	return fsys
}

func samePrunedVerdict(t *testing.T, e *Engine, data []byte) {
	t.Helper()
	whole, err := astjson.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	want := e.EvalValue(context.Background(), whole, Project{Name: "p"})
	got := e.EvalValue(context.Background(), astjson.Prune(whole, e.InputPaths()), Project{Name: "p"})
	if want.Err != nil || got.Err != nil {
		t.Fatalf("errors: whole %v, pruned %v", want.Err, got.Err) // every case is meant to judge
	}
	if !reflect.DeepEqual(want.Findings, got.Findings) || want.Verdict != got.Verdict {
		t.Errorf("pruned to\n%s\njudged %s %v\nwhole: %s %v", e.InputPaths(), got.Verdict, got.Findings, want.Verdict, want.Findings)
	}
}

// What the analysis keeps of the plan: the attributes the policies read, and no more.
func TestInputPathsRead(t *testing.T) {
	for _, tc := range []struct {
		name, body, want string
	}{
		{"attribute", pruneCases["attribute"], "resource_changes[*].address\nresource_changes[*].change.after.acl\n"},
		{"through a rule", "changes := [rc | some rc in input.resource_changes; rc.mode == \"managed\"]\n" +
			"deny contains c.address if { some c in changes; c.type == \"x\" }",
			"resource_changes[*].address\nresource_changes[*].mode\nresource_changes[*].type\n"},
		{"through a function", "t(rc) := rc.type\ndeny contains x if { some rc in input.resource_changes; x := t(rc) }",
			"resource_changes[*].type\n"},
		{"kind only", pruneCases["type only"], "resource_changes[*].address\nresource_changes[*].change.after.blob?\n"},
		{"size only", pruneCases["count object"], "resource_changes[*].address\nresource_changes[*].change.before[*]?\n"},
		{"constant keys", pruneCases["constant keys"], "resource_changes[*].address\nresource_changes[*].change.after.labels.owner\nresource_changes[*].change.after.tags.owner\n"},
		{"whole", pruneCases["walk"], "(whole)\n"},
		{"computed top-level key", pruneCases["input computed"], "[*].v.value\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := Load(context.Background(), Source{FS: caseFS(tc.body), Paths: []string{"."}}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := e.InputPaths().String(); got != tc.want {
				t.Errorf("paths read:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

// The bench's policies read a few attributes of each change: most of the plan is pruned.
func TestBenchPoliciesPrune(t *testing.T) {
	e, err := Load(context.Background(), benchPolicies, Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := e.InputPaths()
	rc, _ := p.Child("resource_changes")
	elem, _ := rc.Elem()
	change, _ := elem.Child("change")
	if p.Whole() || change.Whole() || p.Has("prior_state") {
		t.Fatalf("paths read:\n%s", p)
	}
	if _, ok := change.Child("before"); ok {
		t.Errorf("before is read:\n%s", p)
	}
	whole, _ := astjson.Decode(plangen.Generate(20))
	if ast.Compare(astjson.Prune(whole, p), whole) == 0 {
		t.Error("nothing pruned")
	}
}

// A function called with more of input than an alias set holds (maxAliases) is widened:
// what reaches it is read whole, and the pruned plan is still judged as the whole one.
func TestPrunedInputWidened(t *testing.T) {
	var b strings.Builder
	b.WriteString("id(x) := x\n")
	for i := range maxAliases + 8 {
		fmt.Fprintf(&b, "v%d := [id(rc.change.before).acl | some rc in input.resource_changes; _ = id(rc.change.after[\"k%d\"])]\n", i, i)
	}
	b.WriteString(`deny contains sprintf("%v", [x]) if { some rc in input.resource_changes; x := id(id(rc).change).before.password }` + "\n")
	b.WriteString(`deny contains sprintf("%v", [v0]) if { true }` + "\n")
	e, err := Load(context.Background(), Source{FS: caseFS(b.String()), Paths: []string{"."}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	samePrunedVerdict(t, e, []byte(pruneInput))
	// Widened: every resource change passed to id is read whole.
	if got := e.InputPaths().String(); !strings.Contains(got, "resource_changes[*]\n") {
		t.Errorf("id's arguments not read whole:\n%s", got)
	}
}
