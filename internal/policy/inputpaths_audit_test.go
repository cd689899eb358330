package policy

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"testing/fstest"

	"github.com/tfgate/tfgate/internal/astjson"
	"github.com/tfgate/tfgate/internal/plan/plangen"
)

// auditCase is a policy and an input on which evaluating the input pruned to the
// engine's InputPaths must give the same Result as the whole input (the soundness claim
// of inputPathsRead / astjson.Prune).
type auditCase struct {
	name   string
	policy string // module text, package included
	input  string // plan JSON
}

func auditLoad(t *testing.T, policy string) *Engine {
	t.Helper()
	fs := fstest.MapFS{"p.rego": &fstest.MapFile{Data: []byte(policy)}}
	e, err := Load(context.Background(), Source{FS: fs, Paths: []string{"."}}, Options{})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return e
}

func resultString(r Result) string {
	return fmt.Sprintf("verdict=%s findings=%v excepted=%v approval=%+v err=%v", r.Verdict, r.Findings, r.Excepted, r.Approval, r.Err)
}

func runAudit(t *testing.T, cases []auditCase) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := auditLoad(t, tc.policy)
			full, err := astjson.Decode([]byte(tc.input))
			if err != nil {
				t.Fatal(err)
			}
			paths := e.InputPaths()
			pruned := astjson.Prune(full, paths)
			ctx := context.Background()
			want := e.EvalValue(ctx, full, Project{Name: "p"})
			got := e.EvalValue(ctx, pruned, Project{Name: "p"})
			if resultString(want) != resultString(got) || !reflect.DeepEqual(want.Findings, got.Findings) {
				t.Errorf("pruning changed the result\npaths:\n%spruned input: %v\nfull:   %s\npruned: %s", paths, pruned, resultString(want), resultString(got))
			}
		})
	}
}

// The default library and the examples' policies give the same result on a pruned plan.
func TestAuditDefaultPoliciesPruned(t *testing.T) {
	ctx := context.Background()
	for _, dir := range []string{"policies", "examples/monorepo/policies"} {
		e, err := Load(ctx, Source{FS: os.DirFS("../.."), Paths: []string{dir}}, Options{})
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		t.Logf("%s reads:\n%s", dir, e.InputPaths())
		plans := map[string][]byte{"plangen": plangen.Generate(300)}
		files, _ := filepath.Glob("testdata/*.json")
		for _, f := range files {
			b, _ := os.ReadFile(f)
			plans[f] = b
		}
		for name, raw := range plans {
			full, err := astjson.Decode(raw)
			if err != nil {
				t.Fatal(err)
			}
			want := e.EvalValue(ctx, full, Project{Name: "p"})
			got := e.EvalValue(ctx, astjson.Prune(full, e.InputPaths()), Project{Name: "p"})
			if resultString(want) != resultString(got) {
				t.Errorf("%s on %s: full %s\npruned %s", dir, name, resultString(want), resultString(got))
			}
		}
	}
}

// TestAuditPruneFound: the cases the audit found judged differently on the pruned input
// (with-mocked functions, ref-head keys of sets, a parameter named twice, conflicts hidden
// by pruning). All were fail-open: the whole plan denied (or errored, which blocks) and
// the pruned one passed. Each must now be judged alike.
func TestAuditPruneFound(t *testing.T) {
	runAudit(t, []auditCase{
		// 1. `with` replacing a function: the analysis follows the call into f (which
		// ignores its argument) and never into id; the target of a with is not looked at.
		{"function mocked with another function", `package p
f(_) := "constant"
id(x) := x
deny contains "public bucket" if {
	some rc in input.resource_changes
	contains(f(rc.address), "public") with f as id
}`, `{"resource_changes":[{"address":"aws_s3_bucket.public"}]}`},
		// 1b. `with` replacing a built-in: count is taken to read only the size.
		{"builtin mocked with a function", `package p
total(xs) := sum([x.monthly | some x in xs])
deny contains "too expensive" if {
	n := count(input.resource_changes) with count as total
	n > 100
}`, `{"resource_changes":[{"monthly":500}]}`},
		// 2. A multi-value rule with a variable in its ref head: the key variable is
		// never marked read (only Head.Key is), so the keys collapse to "".
		{"multi-value ref head key", `package p
changed[addr] contains rc.type if {
	some rc in input.resource_changes
	addr := rc.address
}
deny contains addr if {
	some addr
	changed[addr]
	startswith(addr, "module.prod.")
}`, `{"resource_changes":[{"address":"module.prod.aws_db_instance.main","type":"aws_db_instance"}]}`},
		{"multi-value ref head group-by", `package p
by_type[t] contains rc.address if { some rc in input.rc; t := rc.type }
deny contains msg if { some t, addrs in by_type; msg := sprintf("%s:%d", [t, count(addrs)]) }`, `{"rc":[{"type":"a","address":"x"},{"type":"b","address":"y"}]}`},
		// 3. A variable repeated in a function's head: the second parameter's binding
		// replaces the first, and the implied equality is not a read.
		{"repeated function parameter", `package p
same(x, x) := true
deny contains "owner changed" if {
	some rc in input.resource_changes
	not same(rc.change.before.owner, rc.change.after.owner)
}`, `{"resource_changes":[{"change":{"before":{"owner":"alice"},"after":{"owner":"mallory"}}}]}`},
		// 4. Conflicts: values read only for their kind collapse to one, so a rule that
		// conflicts (eval_conflict_error, which blocks) on the whole plan passes pruned.
		{"complete rule conflict", `package p
region := r if { some rc in input.resource_changes; r := rc.region }
deny contains "region is not a string" if not is_string(region)`, `{"resource_changes":[{"region":"us-east-1"},{"region":"eu-west-1"}]}`},
		{"two complete definitions conflict", `package p
r := input.a
r := input.b
deny contains "r is a number" if is_number(r)`, `{"a":"x","b":"y"}`},
		{"function conflict", `package p
f(_) := x if { some x in input.a }
deny contains "number" if is_number(f(1))`, `{"a":["x","y"]}`},
		{"function else conflict", `package p
f(xs) := v if { some v in xs } else := 0
deny contains "number" if is_number(f(input.a))`, `{"a":["x","y"]}`},
		{"partial object conflict", `package p
o[k] := x if { some x in input.a; k := "k" }
deny contains "number" if is_number(o.k)`, `{"a":["x","y"]}`},
		{"ref head object conflict", `package p
o[k].n := v if { some rc in input.rc; k := "x"; v := rc.n }
deny contains "n is a number" if { is_number(o.x.n) }`, `{"rc":[{"n":"1"},{"n":"2"}]}`},
		{"object comprehension conflict", `package p
deny contains "number" if { o := {"k": v | some v in input.a}; is_number(o.k) }`, `{"a":["x","y"]}`},
	})
}

// TestAuditPruneSound: constructs the audit tried that prune soundly (kept as regression
// cases).
func TestAuditPruneSound(t *testing.T) {
	runAudit(t, []auditCase{
		{"template string", `package p
deny contains $"{input.a}" if true`, `{"a":"x"}`},
		{"else chain", `package p
r := input.a if { input.c } else := input.b
deny contains r if true`, `{"a":"x","b":"y","c":false}`},
		{"object.get computed", `package p
deny contains msg if { some k in ["a","b"]; msg := object.get(input, [k, "name"], "none") }`, `{"a":{"name":"x"},"b":{"name":"y"}}`},
		{"object.get string index on array", `package p
deny contains x if { x := object.get(input, ["a", "0"], "none") }`, `{"a":["x","y"]}`},
		{"object.get default input", `package p
deny contains x if { x := object.get(input.a, "b", input.c) }`, `{"a":{},"c":"y"}`},
		{"false vs missing", `package p
deny contains "off" if { some rc in input.rc; object.get(rc, "enabled", true) == false }
deny contains "not" if { some rc in input.rc; not rc.enabled }`, `{"rc":[{"enabled":false}]}`},
		{"pattern param", `package p
f({"type": t}) := t
deny contains x if { some rc in input.rc; x := f(rc) }`, `{"rc":[{"type":"a","x":1}]}`},
		{"ref head single", `package p
a.b[k] := v if { some rc in input.rc; k := rc.address; v := rc.type }
deny contains x if { some k, v in a.b; x := sprintf("%s=%s", [k, v]) }`, `{"rc":[{"address":"x","type":"t"}]}`},
		{"array unify", `package p
deny contains a if { [a, b] = input.pair }`, `{"pair":["x","y"]}`},
		{"with data", `package p
r := input.a
s := r
deny contains x if { x := s with data.p.r as input.b }`, `{"a":"x","b":"y"}`},
		{"with input as", `package p
r := input.a.b
deny contains x if { x := r with input as {"a": input.c} }`, `{"a":{"b":"x"},"c":{"b":"y"}}`},
		{"with input path", `package p
r := count(input.a)
deny contains x if { x := r with input.a.z as 1 }`, `{"a":{"b":"x"}}`},
		{"count object and string", `package p
deny contains "many" if { count(input.tags) > 1 }
deny contains "long" if { count(input.s) > 3 }`, `{"tags":{"a":"1","b":"2"},"s":"hello"}`},
		{"every keys", `package p
deny contains "k" if { every k, _ in input.tags { startswith(k, "a") } }`, `{"tags":{"a":"1","ab":"2"}}`},
		{"every values", `package p
deny contains "all enabled" if { every x in input.a { x.enabled } }`, `{"a":[{"enabled":true},{"enabled":false}]}`},
		{"set dedupe", `package p
deny contains "dups" if { s := {x.type | some x in input.rc}; count(s) < count(input.rc) }
deny contains "two" if { count({x | some x in input.a}) == 2 }`, `{"rc":[{"type":"a"},{"type":"a"}],"a":["x","y"]}`},
		{"input by var", `package p
deny contains x if { some k; x := input[k].name; k != "z" }`, `{"a":{"name":"x"}}`},
		{"function from two sites", `package p
id(x) := x
deny contains x if { x := id(input.a); y := id(input.b); is_string(y) }`, `{"a":"x","b":"y"}`},
		{"ref through function result", `package p
id(x) := x
deny contains x if { x := id(input.a).b.c }`, `{"a":{"b":{"c":"x"}}}`},
		{"object.union object.filter array.slice", `package p
deny contains x if { o := object.union(input.a, {}); x := o.name }
deny contains x if { o := object.filter(input.a, ["name"]); x := o.name }
deny contains x if { s := array.slice(input.l, 0, 1); x := s[0] }`, `{"a":{"name":"x","o":1},"l":["x","y"]}`},
		{"partial set and object counts", `package p
s contains rc.type if { some rc in input.rc }
o[rc.type] := 1 if { some rc in input.rc }
deny contains "dup" if { count(s) < count(input.rc) }
deny contains "one" if { count(o) == 1 }`, `{"rc":[{"type":"a"},{"type":"a"}]}`},
		{"array comprehension count", `package p
deny contains "n" if { count([1 | some rc in input.rc; rc.x]) == 1 }`, `{"rc":[{"x":true},{"x":false}]}`},
		{"exceptions", `package p
exception contains r if { some r in input.skiplist }
deny_x contains "x" if true
deny_y contains "y" if true`, `{"skiplist":["x"]}`},
		{"print and metadata", `package p
# METADATA
# title: T
deny contains x if { print(input.a); m := rego.metadata.rule(); x := sprintf("%v %v", [m.title, input.b]) }`, `{"a":"x","b":"y"}`},
		{"numeric index object", `package p
deny contains x if { x := input.a[0] }
deny contains x if { x := input.b["0"] }`, `{"a":{"0":"x"},"b":["y"]}`},
	})
}
