package plan

import (
	"os"
	"testing"

	"github.com/tfgate/tfgate/internal/plan/plangen"
)

// showPlanEnv names a file of real `terraform show -json` output to benchmark with (the
// issue's 10,000 terraform_data plan); the benchmarks reading it skip when it is unset.
const showPlanEnv = "TFGATE_BENCH_SHOW_JSON"

func showPlan(b *testing.B) []byte {
	path := os.Getenv(showPlanEnv)
	if path == "" {
		b.Skipf("%s is not set", showPlanEnv)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

func benchDecode(b *testing.B, data []byte) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(data); err != nil {
			b.Fatal(err)
		}
	}
}

func benchReadDocument(b *testing.B, data []byte) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := ReadDocument(data, Options{}, ReadsNothing()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecode10k is Decode of a generated plan of 10,000 resource changes.
func BenchmarkDecode10k(b *testing.B) { benchDecode(b, plangen.Generate(10000)) }

// BenchmarkDecodeShow is Decode of the plan file named by TFGATE_BENCH_SHOW_JSON.
func BenchmarkDecodeShow(b *testing.B) { benchDecode(b, showPlan(b)) }

// BenchmarkReadDocumentShow is ReadDocument of the plan file named by TFGATE_BENCH_SHOW_JSON.
func BenchmarkReadDocumentShow(b *testing.B) { benchReadDocument(b, showPlan(b)) }
