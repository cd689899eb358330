package main

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
)

// laptopReplan: a second `tfgate plan P` with nothing changed, on a laptop (no CI
// environment: tfgate keeps the project's terraform data directory between runs and skips
// init when nothing init reads changed), against `terraform plan` alone in an initialised
// directory — issue 29's goal: a re-plan costs at most what terraform plan costs. The
// warm-up round is tfgate's first plan.
func laptopReplan(ctx context.Context, t Tools) (Sequence, Sequence, error) {
	env := t.env()
	dirs := [2]string{filepath.Join(t.Work, "replan-tfgate"), filepath.Join(t.Work, "replan-raw")}
	for _, d := range dirs {
		if err := writeTree(d, map[string]string{"app/main.tf": smallProject(0)}); err != nil {
			return Sequence{}, Sequence{}, err
		}
		if err := commitAll(ctx, d, "tiny"); err != nil {
			return Sequence{}, Sequence{}, err
		}
	}
	raw := filepath.Join(dirs[1], "app")
	init := exec.CommandContext(ctx, t.Terraform, "init", "-input=false", "-no-color")
	init.Dir, init.Env = raw, env
	if out, err := init.CombinedOutput(); err != nil {
		return Sequence{}, Sequence{}, fmt.Errorf("terraform init in %s: %v\n%s", raw, err, out)
	}
	a := Sequence{Name: "tfgate", Commands: []Command{{Args: []string{t.Tfgate, "plan", "app", "--publish", "none"}, Dir: dirs[0], Env: env}}}
	b := Sequence{Name: "terraform", Commands: []Command{{Args: []string{t.Terraform, "plan", "-input=false", "-no-color"}, Dir: raw, Env: env}}}
	return a, b, nil
}
