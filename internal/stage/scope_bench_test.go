package stage

import (
	"fmt"
	"os/exec"
	"testing"
	"time"

	"github.com/tfgate/tfgate/internal/project"
	"github.com/tfgate/tfgate/internal/testenv"
)

func planAll(b *testing.B, root string, projects []project.Project, unscoped bool) {
	opts := PlanOptions{Env: Env{Root: root, TerraformEnv: testenv.RunEnv(), Parallel: 2}, Projects: projects,
		Binary: testBinary(b), unscoped: unscoped}
	run, err := Plan(b.Context(), opts)
	if err != nil {
		b.Fatal(err)
	}
	for _, p := range run.Projects {
		if p.Error != "" {
			b.Fatalf("%s: %s", p.Name, p.Error)
		}
	}
}

// BenchmarkPlanScoped measures what the tree (scope.go) and the read guard (guard.go) cost
// a plan: 1 and 40 small projects (one terraform_data each, a module and a template), each
// planned in the checkout as before and in its tree under the guard, in one run:
//
//	go test -run '^$' -bench PlanScoped -benchtime 3x ./internal/stage
func BenchmarkPlanScoped(b *testing.B) {
	for _, n := range []int{1, 40} {
		files := map[string]string{"modules/m/main.tf": "variable \"v\" {}\nresource \"terraform_data\" \"m\" { input = var.v }\n"}
		var projects []project.Project
		for i := range n {
			dir := fmt.Sprintf("p%02d", i)
			files[dir+"/main.tf"] = "module \"m\" {\n  source = \"../modules/m\"\n  v      = templatefile(\"${path.module}/t.tpl\", {})\n}\n"
			files[dir+"/t.tpl"] = "hello"
			projects = append(projects, project.Project{Name: dir, Dir: dir, Workspace: "default", Modules: []string{"modules/m"}})
		}
		root := testenv.WriteTree(b, files)
		if out, err := exec.Command("git", "-C", root, "init", "-q").CombinedOutput(); err != nil {
			b.Fatalf("git init: %v %s", err, out)
		}
		// Alternating, so that a busy machine weighs on both alike.
		b.Run(fmt.Sprintf("projects=%d", n), func(b *testing.B) {
			var took [2]time.Duration
			for b.Loop() {
				for i, unscoped := range []bool{true, false} {
					start := time.Now()
					planAll(b, root, projects, unscoped)
					took[i] += time.Since(start)
				}
			}
			b.ReportMetric(float64(took[0].Milliseconds())/float64(b.N), "checkout-ms/op")
			b.ReportMetric(float64(took[1].Milliseconds())/float64(b.N), "scoped+guard-ms/op")
			b.ReportMetric(float64(took[1])/float64(took[0]), "ratio")
		})
	}
}
