package pipeline

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/project"
)

// benchProject is a project of n resources with a little nesting, in the shape of real ones.
func benchProject(n int) string {
	return fmt.Sprintf(`
resource "terraform_data" "r" {
  count = %d
  input = { index = count.index, name = "r${count.index}", tags = { env = "prod", team = "platform" } }
}
`, n)
}

// BenchmarkSinglePlan compares raw `terraform init + plan -out + show -json` with tfgate's
// plan of the same single project (which adds workspace handling, decoding, summarising and
// the report). Target: tfgate ≤ 1.05× raw. Compare the two sub-benchmarks' ns/op.
func BenchmarkSinglePlan(b *testing.B) {
	for _, n := range []int{20, 500} {
		b.Run(fmt.Sprintf("resources=%d", n), func(b *testing.B) { benchSinglePlan(b, benchProject(n)) })
	}
}

func benchSinglePlan(b *testing.B, source string) {
	bin := testBinary(b)
	env := testEnv()
	var environ []string
	for k, v := range env {
		environ = append(environ, k+"="+v)
	}

	b.Run("raw-terraform", func(b *testing.B) {
		dir := writeTree(b, map[string]string{"p/main.tf": source})
		wd := filepath.Join(dir, "p")
		run := func(args ...string) {
			cmd := exec.Command(bin.Path, args...)
			cmd.Dir, cmd.Env = wd, environ
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("terraform %v: %v\n%s", args, err, out)
			}
		}
		for b.Loop() {
			run("init", "-input=false", "-no-color")
			run("plan", "-input=false", "-no-color", "-out", filepath.Join(dir, "plan.tfplan"))
			run("show", "-json", filepath.Join(dir, "plan.tfplan"))
		}
	})

	b.Run("tfgate", func(b *testing.B) {
		root := writeTree(b, map[string]string{"p/main.tf": source})
		ctx := context.Background()
		projects, err := project.Discover(ctx, root, config.Default())
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			rep, err := Plan(ctx, PlanOptions{Root: root, Projects: projects, Binary: bin, Env: env, Parallel: 1})
			if err != nil || rep.Projects[0].Error != "" {
				b.Fatalf("plan: %v %s", err, rep.Projects[0].Error)
			}
		}
	})
}
