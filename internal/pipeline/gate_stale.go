package pipeline

import (
	"context"

	"github.com/tfgate/tfgate/internal/bundle"
	"github.com/tfgate/tfgate/internal/gate"
	"github.com/tfgate/tfgate/internal/project"
	"github.com/tfgate/tfgate/internal/stage"
)

// gateStale refuses, in `tfgate gate`, a plan whose inputs differ from the checkout's: the
// checkout of a review (GitHub's test merge of the pull request with the current default
// branch) holds what a merge now would, so a plan made before the default branch changed
// the project is stale, and apply would refuse it after the merge. Without this a review
// given after notify-stale marked the plan stale would turn tfgate/gate green again. A
// merge queue's plan is of the very commit checked out: not checked here. scratch is a
// temporary directory, left out of the sums.
func (a *runFacts) gateStale(ctx context.Context, sel stage.Selection, scratch string) error {
	if a.queue != "" {
		return nil
	}
	var shared map[string]string
	for i := range a.targets {
		t := &a.targets[i]
		if t.review != "" || t.bundle == nil || t.bundle.InputHash == "" {
			continue
		}
		if shared == nil {
			rules := a.Config
			if sel.BaseView != nil {
				rules = sel.BaseView.Config
			}
			var err error
			if shared, err = stage.SharedSums(ctx, a.Root, sel.All, rules, scratch); err != nil {
				return err
			}
		}
		files, err := project.InputFiles(ctx, a.Root, t.p)
		if err != nil {
			return err
		}
		sums, _, err := bundle.HashInputs(ctx, a.Root, stage.Outside(files, a.Root, scratch))
		if err != nil {
			return err
		}
		for f, sum := range shared {
			sums[f] = sum
		}
		t.problems = append(t.problems, gate.StaleCheckout(t.bundle.InputHash, bundle.InputHash(sums), t.bundle.Inputs, sums)...)
	}
	return nil
}
