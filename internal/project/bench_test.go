package project

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

const (
	benchEnvs     = 5
	benchServices = 100 // per environment: 500 projects
	benchModules  = 100
)

// benchTree writes a monorepo of 500 projects and 100 modules. Modules form chains of ten
// (each uses the next), every project calls two modules, so closures are a few modules deep.
func benchTree(b *testing.B) string {
	b.Helper()
	root := b.TempDir()
	files := map[string]string{}
	for m := range benchModules {
		dir := fmt.Sprintf("modules/m%03d", m)
		main := `resource "terraform_data" "this" {
  input = var.name
}
`
		if m%10 != 9 {
			main += module("next", fmt.Sprintf("../m%03d", m+1))
		}
		files[dir+"/main.tf"] = main
		files[dir+"/variables.tf"] = "variable \"name\" {\n  type = string\n}\n"
		files[dir+"/outputs.tf"] = "output \"id\" {\n  value = terraform_data.this.id\n}\n"
		files[dir+"/README.md"] = "# module\n"
	}
	for e := range benchEnvs {
		for s := range benchServices {
			dir := fmt.Sprintf("envs/env%d/svc%03d", e, s)
			j := e*benchServices + s
			files[dir+"/main.tf"] = module("a", fmt.Sprintf("../../../modules/m%03d", j%benchModules)) +
				module("b", fmt.Sprintf("../../../modules/m%03d", (j*7)%benchModules)) +
				module("registry", "terraform-aws-modules/vpc/aws")
			files[dir+"/variables.tf"] = "variable \"region\" {\n  type = string\n}\n"
			files[dir+"/backend.tf"] = "terraform {\n  backend \"local\" {}\n}\n"
			files[dir+"/terraform.tfvars"] = "region = \"eu-west-1\"\n"
			files[dir+"/.terraform.lock.hcl"] = "# lock\n"
		}
	}
	writeTree(b, root, files)
	return root
}

func BenchmarkDiscover(b *testing.B) {
	root := benchTree(b)
	for b.Loop() {
		ps, err := Discover(b.Context(), root, nil)
		if err != nil {
			b.Fatal(err)
		}
		if len(ps) != benchEnvs*benchServices {
			b.Fatalf("got %d projects, want %d", len(ps), benchEnvs*benchServices)
		}
	}
}

// BenchmarkChanged matches 5,000 changed files against 500 projects. "mixed" touches most
// projects (each stops at its first hit); "misses" touches none, so every glob of every
// project is tried against every file under its directory: the worst case.
func BenchmarkChanged(b *testing.B) {
	ps, err := Discover(b.Context(), benchTree(b), nil)
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	var mixed, misses []string
	for len(mixed) < 5000 {
		switch n := r.IntN(10); {
		case n < 6: // in a project dir: some Terraform files, some not
			name := []string{"main.tf", "README.md", "templates/x.tpl", "terraform.tfvars"}[r.IntN(4)]
			mixed = append(mixed, fmt.Sprintf("envs/env%d/svc%03d/%s", r.IntN(benchEnvs), r.IntN(benchServices*2), name))
		case n < 8:
			mixed = append(mixed, fmt.Sprintf("modules/m%03d/f%d.tf", r.IntN(benchModules*2), r.IntN(100)))
		default:
			mixed = append(mixed, fmt.Sprintf("docs/section%d/page%d.md", r.IntN(50), r.IntN(100)))
		}
	}
	for len(misses) < 5000 {
		e, s := r.IntN(benchEnvs), r.IntN(benchServices)
		misses = append(misses,
			fmt.Sprintf("envs/env%d/svc%03d/doc%d.md", e, s, len(misses)),
			fmt.Sprintf("envs/env%d/svc%03d/templates/t%d.tf", e, s, len(misses)))
	}
	for _, bc := range []struct {
		name  string
		files []string
	}{{"mixed", mixed}, {"misses", misses}} {
		b.Run(bc.name, func(b *testing.B) {
			var touched int
			for b.Loop() {
				touched = len(ChangedWhy(ps, bc.files))
			}
			b.ReportMetric(float64(touched), "touched")
		})
	}
}
