package policy

import (
	"context"
	"testing"
	"testing/fstest"

	"github.com/tfgate/tfgate/internal/plan"
)

// Second audit of input pruning (inputpaths_const.go, mayConflict). Each case is a policy
// whose result on the plan pruned to InputPaths differs from its result on the whole plan.

// Constant keys: kenv (and env) are one map for the whole rule, comprehensions and `every`
// bodies included, but a variable bound with `=` inside a comprehension (or an every body)
// is local to it: a sibling comprehension's variable of the same name is another variable.
// The analysis takes the second for the first, bound to the first's constants, and prunes
// the ref it keys to those constants only.
func TestAudit2ConstKeyScope(t *testing.T) {
	runAudit(t, []auditCase{
		{
			// k is "a" in the first comprehension, input.foo ("b") in the second:
			// InputPaths keeps only x.a, and the deny is lost.
			name: "sibling comprehension rebinds the name",
			policy: `package p
import rego.v1
deny contains "x" if {
	a := [1 | k = "a"]
	b := [v | k = input.foo; v := input.x[k]]
	count(a) > 0
	count(b) > 0
}`,
			input: `{"foo": "b", "x": {"b": 1}}`,
		},
		{
			// In the second comprehension x is unbound: input.b[x] iterates every key of
			// b. The analysis thinks x is the first comprehension's "a": it keeps b.a only.
			name: "sibling comprehension iterates with the name",
			policy: `package p
import rego.v1
deny contains "x" if {
	a := [1 | x = "a"]
	b := [v | v := input.b[x]]
	count(a) > 0
	count(b) > 0
}`,
			input: `{"b": {"c": 1}}`,
		},
		{
			// A tagging policy: t is each required tag (a constant rule) in the first
			// comprehension, each tag of the resource in the second. Only tags.Owner is
			// kept, so the resource seems to have one tag and the deny is lost.
			name: "required tags from a constant rule",
			policy: `package p
import rego.v1
required := ["Owner"]
deny contains msg if {
	some rc in input.resource_changes
	missing := [t | t = required[_]; not rc.change.after.tags[t]]
	present := [v | v = rc.change.after.tags[t]]
	count(missing) == 0
	count(present) > 1
	msg := "too many tags"
}`,
			input: `{"resource_changes": [{"change": {"after": {"tags": {"Owner": "a", "Env": "b"}}}}]}`,
		},
		{
			name: "every body then comprehension",
			policy: `package p
import rego.v1
deny contains "x" if {
	every z in [1] { k = "a"; z == 1 }
	b := [v | k = input.foo; v := input.x[k]]
	count(b) > 0
}`,
			input: `{"foo": "b", "x": {"b": 1}}`,
		},
		{
			name: "set comprehension in a function",
			policy: `package p
import rego.v1
f(m) := y if {
	a := {1 | k = "a"}
	y := [v | some v in m[k]]
	count(a) > 0
}
deny contains "x" if count(f(input.m)) > 0
`,
			input: `{"m": {"b": [1]}}`,
		},
	})
}

// Conflicts: mayConflict counts the definitions at a rule's own ground path, but a rule with
// a computed key in its ref head (o[k] := v) defines, at evaluation, the paths of the rules
// below it too (o.a := ...): OPA compares their values (eval_conflict_error, "object keys
// must be unique"), while the analysis keeps the value of o.a only as far as it is read
// (x.name here). Pruned, the two values agree and the conflict is gone.
func TestAudit2RefHeadConflict(t *testing.T) {
	runAudit(t, []auditCase{
		{
			// full: error (object keys must be unique); pruned: deny.
			name: "ref head with a key overlapping a ground ref head",
			policy: `package p
import rego.v1
o.a := input.x
o[k] := v if some k, v in input.y
deny contains "x" if data.p.o.a.name == "n"
`,
			input: `{"x": {"name": "n", "z": 1}, "y": {"a": {"name": "n"}}}`,
		},
		{
			// full: error, which blocks; pruned: pass.
			name: "conflict error judged a pass",
			policy: `package p
import rego.v1
o.a := input.x
o[k] := v if some k, v in input.y
deny contains "x" if data.p.o.a.name == "other"
`,
			input: `{"x": {"name": "n", "z": 1}, "y": {"a": {"name": "n"}}}`,
		},
	})
}

const auditXY = `{"x": {"name": "n", "z": 1}, "y": {"name": "n"}}`

// What the second audit tried that pruning handles (regression checks, passing).
func TestAudit2PruneSound(t *testing.T) {
	runAudit(t, []auditCase{
		{name: "assign in sibling comprehensions (renamed apart)", policy: `package p
import rego.v1
deny contains "x" if {
	a := [1 | k := "a"]
	b := [v | k := input.foo; v := input.x[k]]
	count(a) > 0
	count(b) > 0
}`, input: `{"foo": "b", "x": {"b": 1}}`},
		{name: "eq then some in sibling comprehensions", policy: `package p
import rego.v1
deny contains "x" if {
	a := [1 | k = "a"]
	b := [v | some k; v := input.x[k]]
	count(a) > 0
	count(b) > 0
}`, input: `{"x": {"b": 1}}`},
		{name: "else branch has its own constants", policy: `package p
import rego.v1
r := v if {
	k = "a"
	v := input.x[k]
} else := v if {
	v := input.x[input.foo]
}
deny contains "x" if r == 1
`, input: `{"foo": "b", "x": {"b": 1}}`},
		{name: "count of a set of rule values", policy: `package p
import rego.v1
a := input.x
b := input.y
deny contains "x" if { a.name == "n"; b.name == "n"; count({a, b}) == 1 }`, input: auditXY},
		{name: "in membership of a rule value", policy: `package p
import rego.v1
a := input.x
deny contains "x" if { a.name == "n"; input.y in [a] }`, input: auditXY},
		{name: "equality through a function", policy: `package p
import rego.v1
f(v) := v
deny contains "x" if { f(input.x).name == "n"; f(input.x) == f(input.y) }`, input: auditXY},
		{name: "partial set of input values", policy: `package p
import rego.v1
s contains input.x
s contains input.y
deny contains "x" if { count(s) == 1 }`, input: auditXY},
		{name: "pattern unified with a rule value", policy: `package p
import rego.v1
a := input.x
deny contains "x" if { {"name": "n"} = a }`, input: auditXY},
		{name: "object comprehension keys", policy: `package p
import rego.v1
o := {k: 1 | some k in [input.x, input.y]}
deny contains "x" if { count(o) == 1 }`, input: auditXY},
		{name: "object.union_n", policy: `package p
import rego.v1
deny contains "x" if { object.union_n([input.x, input.y]) == input.y }`, input: auditXY},
		{name: "ref heads nested overlap", policy: `package p
import rego.v1
o.a.b := input.x
o[k] := v if some k, v in input.y
deny contains "x" if data.p.o.a.b.name == "n"
`, input: `{"x": {"name": "n", "z": 1}, "y": {"a": {"b": {"name": "n"}}}}`},
		{name: "ref head var in the middle", policy: `package p
import rego.v1
o.a.name := input.x.name
o.a.extra := input.x.extra
o[k].extra := v if some k, v in input.y
deny contains "x" if data.p.o.a.name == "n"
`, input: `{"x": {"name": "n", "extra": {"q": 1, "r": 2}}, "y": {"a": {"q": 1}}}`},
		{name: "function with two definitions", policy: `package p
import rego.v1
f(x) := input.a if x == 1
f(x) := input.b if x == 1
deny contains "x" if f(1).name == "n"
`, input: `{"a": {"name": "n", "z": 1}, "b": {"name": "n"}}`},
		{name: "head value iterates", policy: `package p
import rego.v1
r := input.xs[_].name
deny contains "x" if r == "n"
`, input: `{"xs": [{"name": "n"}, {"name": "m"}]}`},
		{name: "string constant key on an array", policy: `package p
import rego.v1
deny contains "x" if { k := "0"; input.x[k] == 1 }
`, input: `{"x": [1]}`},
		{name: "constant rule", policy: `package p
import rego.v1
c := {"a": "k"}
deny contains "x" if { k := data.p.c.a; input.x[k] }
`, input: `{"x": {"k": true}}`},
		{name: "constant rule and a default", policy: `package p
import rego.v1
default c := "j"
c := "k" if input.z
deny contains "x" if { k := data.p.c; input.x[k] }
`, input: `{"z": true, "x": {"k": true}}`},
		{name: "constant ref head rule and a computed one", policy: `package p
import rego.v1
c.a := "k"
c[n] := "j" if some n in input.names
deny contains "x" if { k := data.p.c.a; input.x[k] }
`, input: `{"names": ["b"], "x": {"k": true, "j": true}}`},
	})
}

// A data file at the path of a constant rule (or below it) is refused when the policies are
// compiled (OPA's path conflict check, storage.NonEmpty): constRule's literal stands.
func TestAudit2DataFileAtConstantRuleRefused(t *testing.T) {
	fs := fstest.MapFS{"p.rego": &fstest.MapFile{Data: []byte(`package p
import rego.v1
c := {"a": "k"}
deny contains "x" if { k := data.p.c.a; input.x[k] }
`)}, "data.json": &fstest.MapFile{Data: []byte(`{"p": {"c": {"b": "j"}}}`)}}
	if _, err := Load(context.Background(), Source{FS: fs, Paths: []string{"."}}, Options{}); err == nil {
		t.Error("a data file at a constant rule's path was accepted")
	}
}

// The tagging case end to end, as policy eval and plan runs open a plan (plan.Open with the
// engine's InputPaths): the plan is denied whole and passes opened.
func TestAudit2ConstKeyScopePlanOpen(t *testing.T) {
	e := auditLoad(t, `package p
import rego.v1
required := ["Owner"]
deny contains msg if {
	some rc in input.resource_changes
	missing := [t | t = required[_]; not rc.change.after.tags[t]]
	present := [v | v = rc.change.after.tags[t]]
	count(missing) == 0
	count(present) > 1
	msg := sprintf("%s: too many tags", [rc.address])
}`)
	doc := []byte(`{"format_version":"1.2","terraform_version":"1.9.0","planned_values":{"root_module":{}},
		"resource_changes":[{"address":"aws_s3_bucket.b","mode":"managed","type":"aws_s3_bucket","name":"b",
		"provider_name":"registry.terraform.io/hashicorp/aws",
		"change":{"actions":["create"],"before":null,"after":{"tags":{"Owner":"a","Env":"b"}},"after_unknown":{}}}]}`)
	ctx := context.Background()
	full, err := plan.Open(doc, plan.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	opened, err := plan.Open(doc, plan.OpenOptions{Reads: e.InputPaths()})
	if err != nil {
		t.Fatal(err)
	}
	want := e.EvalValue(ctx, full.Input(), Project{Name: "p"})
	got := e.EvalValue(ctx, opened.Input(), Project{Name: "p"})
	if want.Verdict != got.Verdict {
		t.Errorf("whole plan: %s; opened with InputPaths:\n%s: %s", resultString(want), e.InputPaths(), resultString(got))
	}
}
