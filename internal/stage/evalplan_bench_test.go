package stage

import (
	"context"
	"os"
	"testing"

	"github.com/tfgate/tfgate/internal/plan/plangen"
	"github.com/tfgate/tfgate/internal/policy"
)

// BenchmarkEvalPlan10k is `tfgate policy eval` without the process: load three policies
// of the default library, open a plan of 10,000 resource changes and judge it, the
// setting of the conftest comparison (make bench-compare, case policy).
func BenchmarkEvalPlan10k(b *testing.B) {
	data := plangen.Generate(10000)
	src := policy.Source{FS: os.DirFS("../.."), Paths: []string{
		"policies/lib.rego",
		"policies/protected_resources.rego",
		"policies/blast_radius.rego",
		"policies/required_tags.rego",
	}}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		res, err := EvalPlan(context.Background(), EvalOptions{Source: src, Plan: data, PlanName: "plan.json", Project: "bench"})
		if err != nil || res.Err != nil || !res.Denied() {
			b.Fatalf("denied %v, err %v, %v", res.Denied(), err, res.Err)
		}
	}
}
