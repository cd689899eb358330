package render

import (
	"io"
	"os"
	"testing"

	"github.com/tfgate/tfgate/internal/plan"
	"github.com/tfgate/tfgate/internal/plan/plangen"
	"github.com/tfgate/tfgate/internal/report"
	"github.com/tfgate/tfgate/internal/secret"
)

// showPlanEnv names a `terraform show -json` document to benchmark on besides the
// generated plan (/tmp/show10k-terraform_data.json: 10,000 terraform_data creates).
const showPlanEnv = "TFGATE_BENCH_SHOW_JSON"

// BenchmarkText10k is Text alone, as `tfgate plan` prints a project of 10,000 resource
// changes to a log: through the workflow-command guard and the masker, as cli.Run wraps
// stdout.
func BenchmarkText10k(b *testing.B) {
	b.Run("generated", func(b *testing.B) { benchText(b, plangen.Generate(10000)) })
	b.Run("terraform", func(b *testing.B) {
		path := os.Getenv(showPlanEnv)
		if path == "" {
			b.Skip(showPlanEnv + " is not set")
		}
		data, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		benchText(b, data)
	})
}

func benchText(b *testing.B, data []byte) {
	c, err := plan.Read(data, plan.Options{})
	if err != nil {
		b.Fatal(err)
	}
	r := report.Run{Kind: report.KindPlan, Projects: []report.Project{{Name: "big", Dir: "big", Status: report.StatusPlanned, Changes: c}}}
	masker := secret.NewMasker(nil).With("not-in-the-plan")
	b.ReportAllocs()
	for b.Loop() {
		mw := masker.Writer(io.Discard)
		g := GuardCommands(mw)
		if err := Text(g, r, TextOptions{}); err != nil {
			b.Fatal(err)
		}
		if err := g.Flush(); err != nil {
			b.Fatal(err)
		}
		if err := mw.Flush(); err != nil {
			b.Fatal(err)
		}
	}
}
