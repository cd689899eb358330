package policy

import (
	"context"
	"encoding/json"
	"os"
	"sync"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/tfgate/tfgate/internal/astjson"
	"github.com/tfgate/tfgate/internal/plan/plangen"
)

// The benchmarks use a generated plan with 10,000 resource changes (about
// 35 MB with planned_values, prior_state and configuration) and three
// policies of the default library, the setting of the conftest comparison in
// the package README.
var (
	plan10kOnce sync.Once
	plan10k     []byte
)

func benchPlan() []byte {
	plan10kOnce.Do(func() { plan10k = plangen.Generate(10000) })
	return plan10k
}

var benchPolicies = Source{FS: os.DirFS("../.."), Paths: []string{
	"policies/lib.rego",
	"policies/protected_resources.rego",
	"policies/blast_radius.rego",
	"policies/required_tags.rego",
}}

func benchEngine(b *testing.B) *Engine {
	e, err := Load(context.Background(), benchPolicies, Options{})
	if err != nil {
		b.Fatal(err)
	}
	return e
}

// BenchmarkEval10k is the cost of judging one plan: decode (skipping the
// sections the policies do not read) and evaluate every rule.
func BenchmarkEval10k(b *testing.B) {
	plan := benchPlan()
	e := benchEngine(b)
	b.SetBytes(int64(len(plan)))
	b.ReportAllocs()
	for b.Loop() {
		if r := e.Eval(context.Background(), plan, Project{Name: "bench"}); r.Err != nil || r.Verdict != VerdictDeny {
			b.Fatalf("verdict %s err %v", r.Verdict, r.Err)
		}
	}
}

// BenchmarkEval10kWholePlan decodes every section of the plan, as a policy
// reading `input` as a whole forces.
func BenchmarkEval10kWholePlan(b *testing.B) {
	plan := benchPlan()
	e := benchEngine(b)
	b.SetBytes(int64(len(plan)))
	b.ReportAllocs()
	for b.Loop() {
		v, err := astjson.Decode(plan)
		if err != nil {
			b.Fatal(err)
		}
		if r := e.EvalValue(context.Background(), v, Project{Name: "bench"}); r.Err != nil {
			b.Fatal(r.Err)
		}
	}
}

// BenchmarkEvalValue10k is evaluation alone, on an already decoded plan.
func BenchmarkEvalValue10k(b *testing.B) {
	e := benchEngine(b)
	v, err := e.Decode(benchPlan())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if r := e.EvalValue(context.Background(), v, Project{Name: "bench"}); r.Err != nil {
			b.Fatal(r.Err)
		}
	}
}

func BenchmarkDecode10k(b *testing.B) {
	plan := benchPlan()
	b.SetBytes(int64(len(plan)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := astjson.Decode(plan); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkInterfaceToValue10k is the conversion astjson.Decode replaces
// (encoding/json into map[string]any, then ast.InterfaceToValue), for comparison.
func BenchmarkInterfaceToValue10k(b *testing.B) {
	plan := benchPlan()
	b.SetBytes(int64(len(plan)))
	b.ReportAllocs()
	for b.Loop() {
		var x any
		if err := json.Unmarshal(plan, &x); err != nil {
			b.Fatal(err)
		}
		if _, err := ast.InterfaceToValue(x); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLoadDefaultPolicies(b *testing.B) {
	src := Source{FS: os.DirFS("../.."), Paths: []string{"policies"}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Load(context.Background(), src, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRiskOf10k is the cost of counting data.tfgate.risk, paid on every evaluation.
func BenchmarkRiskOf10k(b *testing.B) {
	e := benchEngine(b)
	v, err := e.Decode(benchPlan())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if r := RiskOf(v); r.Creates+r.Updates+r.Destroys == 0 {
			b.Fatal("no changes counted")
		}
	}
}
