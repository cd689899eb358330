package plan

import (
	"testing"

	"github.com/tfgate/tfgate/internal/plan/plangen"
)

// BenchmarkReadDocument10k is ShowPlan's reading of a plan of 10,000 resource changes with
// no policies (tfgate plan P): the review's typed decoding and the document's harvest.
func BenchmarkReadDocument10k(b *testing.B) {
	data := plangen.Generate(10000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := ReadDocument(data, Options{}, ReadsNothing()); err != nil {
			b.Fatal(err)
		}
	}
}
