package policy

import (
	"context"
	"os"
	"testing"
)

func BenchmarkScratchEvalOnly(b *testing.B) {
	ctx := context.Background()
	e, err := Load(ctx, Source{FS: os.DirFS("/tmp/pexp"), Paths: []string{"pol3"}}, Options{})
	if err != nil {
		b.Fatal(err)
	}
	p, _ := os.ReadFile("/tmp/pexp/plan10k.json")
	v, _ := e.Decode(p)
	b.ResetTimer()
	for b.Loop() {
		e.EvalValue(ctx, v, Project{Name: "x"})
	}
}
