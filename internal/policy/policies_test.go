package policy

import (
	"bytes"
	"context"
	"os"
	"testing"
)

// TestDefaultPolicies runs the Rego unit tests of the default policy library,
// so `go test ./internal/policy/...` fails when any of them fails.
func TestDefaultPolicies(t *testing.T) {
	var out bytes.Buffer
	passed, failed, err := Test(context.Background(), Source{FS: os.DirFS("../.."), Paths: []string{"policies"}}, &out, false)
	if err != nil {
		t.Fatalf("policy tests: %v\n%s", err, out.String())
	}
	if failed > 0 || passed == 0 {
		t.Fatalf("policy tests: %d passed, %d failed\n%s", passed, failed, out.String())
	}
	t.Logf("%d policy tests passed", passed)
}

// TestDefaultPoliciesOnPlan evaluates the whole default library, with
// settings layered from a second path, against a plan that trips each policy.
func TestDefaultPoliciesOnPlan(t *testing.T) {
	ctx := context.Background()
	e, err := Load(ctx, Source{FS: os.DirFS("../.."), Paths: []string{"policies", "internal/policy/testdata/settings"}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := os.ReadFile("testdata/plan_mixed.json")
	if err != nil {
		t.Fatal(err)
	}
	r := e.Eval(ctx, plan, Project{Name: "envs/prod/app"})
	var out bytes.Buffer
	if err := WriteText(&out, r); err != nil {
		t.Fatal(err)
	}
	golden(t, "TestDefaultPoliciesOnPlan", out.Bytes())
}
