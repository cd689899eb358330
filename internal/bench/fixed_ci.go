package main

import (
	"context"
	"path/filepath"
)

// fixedCostCI is fixedCost as a CI run sees it: CI set, so tfgate gives the project a new
// data directory and runs init every time, as the terraform side does (row (a) on a laptop
// skips init from the second run on).
func fixedCostCI(ctx context.Context, t Tools) (Sequence, Sequence, error) {
	t.Work = filepath.Join(t.Work, "ci") // checkouts of its own
	a, b, err := fixedCost(ctx, t)
	for i := range a.Commands {
		a.Commands[i].Env = append(a.Commands[i].Env[:len(a.Commands[i].Env):len(a.Commands[i].Env)], "CI=true")
	}
	return a, b, err
}
