package policy

import (
	"context"
	"os"
	"reflect"
	"testing"

	"github.com/tfgate/tfgate/internal/astjson"
	"github.com/tfgate/tfgate/internal/plan/plangen"
)

func TestInputKeysRead(t *testing.T) {
	tests := []struct {
		name   string
		policy string
		want   map[string]bool // nil: the whole plan
	}{
		{"constant keys", `deny contains x if { some rc in input.resource_changes; x := rc.address }
warn contains input.format_version if input.planned_values.root_module`, map[string]bool{"resource_changes": true, "format_version": true, "planned_values": true}},
		{"bracket string key", `deny contains x if { x := input["prior_state"].values }`, map[string]bool{"prior_state": true}},
		{"import", "import input.configuration as cfg\ndeny contains x if { x := cfg.root_module }", map[string]bool{"configuration": true}},
		{"nested ref key", `deny contains x if { x := input.variables[input.resource_changes[0].name] }`, map[string]bool{"variables": true, "resource_changes": true}},
		{"computed key", `deny contains x if { some k; x := input[k] }`, nil},
		{"whole input assigned", `deny contains x if { p := input; x := p.a }`, nil},
		{"whole input to a function", "f(p) := p.a\ndeny contains x if { x := f(input) }", nil},
		{"walk over input", `deny contains "x" if { walk(input, [_, v]); v == "secret" }`, nil},
		{"with input", `deny contains "x" if { data.other.r with input.a as 1 }`, map[string]bool{"a": true}},
		{"no input at all", `deny contains "x" if true`, map[string]bool{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := mustLoad(t, map[string]string{"p.rego": "package p\n" + tt.policy + "\n", "other.rego": "package other\nr := true\n"})
			if !reflect.DeepEqual(e.inputKeys, tt.want) {
				t.Errorf("input keys %v, want %v", e.inputKeys, tt.want)
			}
		})
	}
}

// TestProjectionGivesSameResult proves that skipping the plan keys the
// policies do not read changes nothing: the default library gives the same
// result on a projected and a fully decoded plan.
func TestProjectionGivesSameResult(t *testing.T) {
	ctx := context.Background()
	e, err := Load(ctx, Source{FS: os.DirFS("../.."), Paths: []string{"policies"}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if e.inputKeys == nil || !e.inputKeys["resource_changes"] || e.inputKeys["prior_state"] {
		t.Fatalf("default policies read %v; want resource_changes and not prior_state", e.inputKeys)
	}
	plan := plangen.Generate(400)
	projected := e.Eval(ctx, plan, Project{Name: "p"})
	full, err := astjson.Decode(plan)
	if err != nil {
		t.Fatal(err)
	}
	whole := e.EvalValue(ctx, full, Project{Name: "p"})
	if projected.Err != nil || whole.Err != nil {
		t.Fatalf("errors: %v / %v", projected.Err, whole.Err)
	}
	if len(projected.Findings) == 0 || !reflect.DeepEqual(projected, whole) {
		t.Errorf("projected plan: %d findings, %s; whole plan: %d findings, %s", len(projected.Findings), projected.Verdict, len(whole.Findings), whole.Verdict)
	}
}
