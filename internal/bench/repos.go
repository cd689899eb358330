package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// The repositories the comparisons run in, generated into temporary directories.

// writeTree writes name → content under dir.
func writeTree(dir string, files map[string]string) error {
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// gitEnv is a hermetic environment for git: no user or system config.
var gitEnv = []string{
	"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
	"GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@example.com",
	"GIT_COMMITTER_NAME=bench", "GIT_COMMITTER_EMAIL=bench@example.com",
}

func git(ctx context.Context, dir string, args ...string) error {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), gitEnv...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("git %v in %s: %v\n%s", args, dir, err, out)
	}
	return nil
}

// commitAll commits everything in dir (a new repository on branch main when there is none).
func commitAll(ctx context.Context, dir, msg string) error {
	if _, err := os.Stat(filepath.Join(dir, ".git")); err != nil {
		if err := git(ctx, dir, "init", "-q", "-b", "main"); err != nil {
			return err
		}
	}
	if err := git(ctx, dir, "add", "-A"); err != nil {
		return err
	}
	return git(ctx, dir, "commit", "-q", "-m", msg)
}

// smallProject is a project of a few built-in resources: terraform's own cost is that of
// starting up, so tfgate's fixed cost shows.
func smallProject(i int) string {
	return fmt.Sprintf(`resource "terraform_data" "a" {
  input = { name = "p%d", replicas = 2 }
}

resource "terraform_data" "b" {
  input = terraform_data.a.output
}

output "name" {
  value = terraform_data.a.output.name
}
`, i)
}

// plansRepo writes a git repository of n small projects, p00/ … .
func plansRepo(ctx context.Context, dir string, n int) ([]string, error) {
	files := map[string]string{}
	var names []string
	for i := range n {
		name := fmt.Sprintf("p%02d", i)
		names = append(names, name)
		files[name+"/main.tf"] = smallProject(i)
	}
	if err := writeTree(dir, files); err != nil {
		return nil, err
	}
	return names, commitAll(ctx, dir, "projects")
}

// monorepo writes a repository of envs×services projects and modules shared modules, the
// shape of project detection's own benchmark: modules form chains of ten (each uses the
// next), every project calls two of them and a registry module. Branch main holds it;
// branch change (checked out) edits a tenth of the modules and of the projects, and
// documentation, so the changed set grows with the repository.
func monorepo(ctx context.Context, dir string, envs, services, modules int) error {
	module := func(name, source string) string {
		return fmt.Sprintf("module %q {\n  source = %q\n  name   = %q\n}\n\n", name, source, name)
	}
	files := map[string]string{}
	for m := range modules {
		d := fmt.Sprintf("modules/m%03d", m)
		main := "resource \"terraform_data\" \"this\" {\n  input = var.name\n}\n\n"
		if m%10 != 9 && m+1 < modules {
			main += module("next", fmt.Sprintf("../m%03d", m+1))
		}
		files[d+"/main.tf"] = main
		files[d+"/variables.tf"] = "variable \"name\" {\n  type = string\n}\n"
		files[d+"/outputs.tf"] = "output \"id\" {\n  value = terraform_data.this.id\n}\n"
		files[d+"/README.md"] = "# module\n"
	}
	for e := range envs {
		for s := range services {
			d := fmt.Sprintf("envs/env%d/svc%03d", e, s)
			j := e*services + s
			files[d+"/main.tf"] = module("a", fmt.Sprintf("../../../modules/m%03d", j%modules)) +
				module("b", fmt.Sprintf("../../../modules/m%03d", (j*7)%modules)) +
				module("registry", "terraform-aws-modules/vpc/aws")
			files[d+"/variables.tf"] = "variable \"region\" {\n  type = string\n}\n"
			files[d+"/backend.tf"] = "terraform {\n  backend \"local\" {}\n}\n"
			files[d+"/terraform.tfvars"] = "region = \"eu-west-1\"\n"
		}
	}
	files["README.md"] = "# monorepo\n"
	if err := writeTree(dir, files); err != nil {
		return err
	}
	if err := commitAll(ctx, dir, "base"); err != nil {
		return err
	}
	if err := git(ctx, dir, "checkout", "-q", "-b", "change"); err != nil {
		return err
	}
	changed := map[string]string{}
	for m := 5; m < modules; m += 10 {
		changed[fmt.Sprintf("modules/m%03d/variables.tf", m)] = "variable \"name\" {\n  type    = string\n  default = \"x\"\n}\n"
		changed[fmt.Sprintf("modules/m%03d/README.md", m)] = "# module, documented\n"
	}
	for j := 3; j < envs*services; j += 10 {
		changed[fmt.Sprintf("envs/env%d/svc%03d/terraform.tfvars", j/services, j%services)] = "region = \"eu-central-1\"\n"
	}
	for i := range envs * services / 10 {
		changed[fmt.Sprintf("docs/page%03d.md", i)] = "# page\n"
	}
	if err := writeTree(dir, changed); err != nil {
		return err
	}
	return commitAll(ctx, dir, "change")
}
