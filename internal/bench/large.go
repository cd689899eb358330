package main

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"

	"github.com/tfgate/tfgate/internal/stage"
)

// largeResources is the size of the large plan: the project of issue 32's third row.
const largeResources = 10000

// largePlan: `tfgate plan P` on a project of 10,000 terraform_data resources to create
// against raw `terraform plan` with its text output (the rendering of every change that
// tfgate's plan -json skips), both from an initialised directory of their own. tfgate
// runs its plan -json, show -json, decoding and rendering on top
// (internal/pipeline's BenchmarkLargePlan measures the same, as a Go benchmark).
func largePlan(ctx context.Context, t Tools) (Sequence, Sequence, error) {
	env := t.env()
	dirs := [2]string{filepath.Join(t.Work, "large-tfgate"), filepath.Join(t.Work, "large-raw")}
	for _, d := range dirs {
		if err := writeTree(d, map[string]string{"p/main.tf": largeProject(largeResources)}); err != nil {
			return Sequence{}, Sequence{}, err
		}
		if err := commitAll(ctx, d, "large"); err != nil {
			return Sequence{}, Sequence{}, err
		}
	}
	raw := filepath.Join(dirs[1], "p")
	init := exec.CommandContext(ctx, t.Terraform, "init", "-input=false", "-no-color")
	init.Dir, init.Env = raw, env
	if out, err := init.CombinedOutput(); err != nil {
		return Sequence{}, Sequence{}, fmt.Errorf("terraform init in %s: %v\n%s", raw, err, out)
	}
	a := Sequence{Name: "tfgate", Commands: []Command{{Args: []string{t.Tfgate, "plan", "p", "--publish", "none"}, Dir: dirs[0], Env: env}}}
	b := Sequence{Name: "terraform", Commands: []Command{{Args: []string{t.Terraform, "plan", "-input=false", "-no-color", "-out=tfplan"}, Dir: raw, Env: env}}}
	return a, b, nil
}

// largeProject is n terraform_data resources, each with a small object as input.
func largeProject(n int) string {
	return fmt.Sprintf(`resource "terraform_data" "r" {
  count = %d
  input = { index = count.index, name = "r${count.index}", tags = { env = "prod", team = "platform" } }
}
`, n)
}

// largeFloor is what tfgate's side of largePlan stands on: terraform's own `plan -json`
// into a plan file and `show -json` of it, run as tfgate runs them (GOGC at
// stage.TerraformGCPercent), from an initialised directory of their own. No tool that
// reviews the JSON plan can do with less.
func largeFloor(ctx context.Context, t Tools) (Sequence, error) {
	dir := filepath.Join(t.Work, "large-floor")
	if err := writeTree(dir, map[string]string{"p/main.tf": largeProject(largeResources)}); err != nil {
		return Sequence{}, err
	}
	p := filepath.Join(dir, "p")
	env := append(t.env(), fmt.Sprintf("GOGC=%d", stage.TerraformGCPercent))
	init := exec.CommandContext(ctx, t.Terraform, "init", "-input=false", "-no-color")
	init.Dir, init.Env = p, env
	if out, err := init.CombinedOutput(); err != nil {
		return Sequence{}, fmt.Errorf("terraform init in %s: %v\n%s", p, err, out)
	}
	return Sequence{Name: "terraform plan -json && show -json", Commands: []Command{
		{Args: []string{t.Terraform, "plan", "-json", "-input=false", "-no-color", "-out=tfplan"}, Dir: p, Env: env},
		{Args: []string{t.Terraform, "show", "-json", "tfplan"}, Dir: p, Env: env},
	}}, nil
}

// largeFloorRows: the floor against raw terraform (terraform's share of row (c)), and
// tfgate against the floor (tfgate's own).
func largeFloorRows(tfgate, raw, floor Stats) []Row {
	return []Row{
		{What: "(c) the floor: terraform plan -json && show -json, as tfgate runs them ÷ terraform plan (text)",
			A: ms(floor.Wall()), B: ms(raw.Wall()), Ratio: ratio(floor.Wall(), raw.Wall()), Target: 1.2},
		{What: "(c) what tfgate adds: tfgate plan P ÷ that floor",
			A: ms(tfgate.Wall()), B: ms(floor.Wall()), Ratio: ratio(tfgate.Wall(), floor.Wall()), Target: 1.05},
	}
}
