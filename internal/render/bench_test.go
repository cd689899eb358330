package render

import (
	"encoding/json"
	"io"
	"sync"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"

	"github.com/tfgate/tfgate/internal/plan"
	"github.com/tfgate/tfgate/internal/plan/plangen"
	"github.com/tfgate/tfgate/internal/secret"
)

// The benchmarks compare tfgate's whole read path (Decode + Summarise + Text) with the bare
// cost of decoding the same plan; the target is at most 1.5× BenchmarkDecodeBaseline.
//
//	go test -run '^$' -bench . -benchmem ./internal/render/

const benchResources = 10_000

var benchPlan = sync.OnceValue(func() []byte { return plangen.Generate(benchResources) })

func BenchmarkDecodeBaseline(b *testing.B) {
	data := benchPlan()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		var p tfjson.Plan
		if err := json.Unmarshal(data, &p); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeAny(b *testing.B) {
	data := benchPlan()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseSummariseRender(b *testing.B) {
	data := benchPlan()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		p, err := plan.Decode(data)
		if err != nil {
			b.Fatal(err)
		}
		c := plan.Summarise(p, plan.Options{Masker: secret.NewMasker(nil).With("not-in-the-plan")})
		if err := PlanText(io.Discard, c, TextOptions{Width: 100}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadSummariseRender is the path plan, render and policy eval take: plan.Read
// (decode, and the harvest of every values tree paired with its markers anywhere in the
// document) + Summarise + Text.
func BenchmarkReadSummariseRender(b *testing.B) {
	data := benchPlan()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		c, err := plan.Read(data, plan.Options{Masker: secret.NewMasker(nil).With("not-in-the-plan")})
		if err != nil {
			b.Fatal(err)
		}
		if err := PlanText(io.Discard, c, TextOptions{Width: 100}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestBenchPlanShape keeps the generated plan honest: it must decode, and hold every action
// kind the benchmark claims to cover.
func TestBenchPlanShape(t *testing.T) {
	p, err := plan.Decode(plangen.Generate(200))
	if err != nil {
		t.Fatal(err)
	}
	s := plan.Summarise(p, plan.Options{}).Summary
	if s.Add == 0 || s.Change == 0 || s.Destroy == 0 || s.Replace == 0 || s.Read == 0 || s.Move == 0 || s.Import == 0 || s.Drift == 0 || s.Outputs == 0 {
		t.Errorf("generated plan lacks an action kind: %+v", s)
	}
}
