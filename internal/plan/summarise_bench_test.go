package plan

import (
	"os"
	"testing"

	"github.com/tfgate/tfgate/internal/plan/plangen"
	"github.com/tfgate/tfgate/internal/secret"
)

// BenchmarkSummarise10k is Summarise alone on a decoded plan of 10,000 resource changes:
// the walk of every change's values with their markers into the review model.
func BenchmarkSummarise10k(b *testing.B) {
	b.Run("generated", func(b *testing.B) { benchSummarise(b, plangen.Generate(10000)) })
	b.Run("terraform", func(b *testing.B) {
		path := os.Getenv(showPlanEnv)
		if path == "" {
			b.Skip(showPlanEnv + " is not set")
		}
		data, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		benchSummarise(b, data)
	})
}

func benchSummarise(b *testing.B, data []byte) {
	p, err := Decode(data)
	if err != nil {
		b.Fatal(err)
	}
	opts := Options{Masker: secret.NewMasker(nil).With("not-in-the-plan")}
	b.ReportAllocs()
	for b.Loop() {
		if c := Summarise(p, opts); len(c.Resources) == 0 {
			b.Fatal("no resources")
		}
	}
}
