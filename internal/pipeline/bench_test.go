package pipeline

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/project"
	"github.com/tfgate/tfgate/internal/stage"
	"github.com/tfgate/tfgate/internal/testenv"
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
	env := testenv.RunEnv()
	var environ []string
	for k, v := range env {
		environ = append(environ, k+"="+v)
	}

	b.Run("raw-terraform", func(b *testing.B) {
		dir := testenv.WriteTree(b, map[string]string{"p/main.tf": source})
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
		root := testenv.WriteTree(b, map[string]string{"p/main.tf": source})
		ctx := context.Background()
		projects, err := project.Discover(ctx, root, config.Default())
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			rep, err := stage.Plan(ctx, stage.PlanOptions{Env: stage.Env{Root: root, TerraformEnv: env, Parallel: 1}, Projects: projects, Binary: bin})
			if err != nil || rep.Projects[0].Error != "" {
				b.Fatalf("plan: %v %s", err, rep.Projects[0].Error)
			}
		}
	})
}

// BenchmarkPluginCache plans 40 fakecloud projects from fresh checkouts, two at a time,
// with committed lock files and fakecloud served as a zip by a filesystem mirror:
//   - no-cache: terraform unpacks the provider into every project (inits one at a time);
//   - cold: tfgate's shared cache, empty at the start of each run;
//   - warm: tfgate's shared cache, filled;
//   - warm-terraform-cache: terraform's own cache (TF_PLUGIN_CACHE_DIR with
//     plugin_cache off), filled, inits one at a time — what serialising inits alone gives.
func BenchmarkPluginCache(b *testing.B) {
	f := newCacheFixture(b, 40)
	warm := filepath.Join(b.TempDir(), "plugins")
	f.plan(b, warm, 2)
	cases := []struct {
		name string
		opts func() stage.PlanOptions
	}{
		{"no-cache", func() stage.PlanOptions { return stage.PlanOptions{} }},
		{"cold", func() stage.PlanOptions {
			return stage.PlanOptions{PluginCacheDir: filepath.Join(b.TempDir(), "plugins")}
		}},
		{"warm", func() stage.PlanOptions { return stage.PlanOptions{PluginCacheDir: warm} }},
		{"warm-terraform-cache", func() stage.PlanOptions {
			return stage.PlanOptions{Env: stage.Env{TerraformEnv: map[string]string{"TF_PLUGIN_CACHE_DIR": warm}}}
		}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				f.fresh(b)
				opts := c.opts()
				opts.Parallel = 2
				b.StartTimer()
				f.run(b, opts)
			}
		})
	}
}
