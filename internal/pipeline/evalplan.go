package pipeline

import (
	"context"
	"fmt"
	"io"

	"github.com/tfgate/tfgate/internal/plan"
	"github.com/tfgate/tfgate/internal/policy"
)

// EvalOptions configure the evaluation of one plan file (`tfgate policy eval`).
type EvalOptions struct {
	Source   policy.Source
	Plan     []byte   // `terraform show -json` output
	PlanName string   // where Plan came from, for errors
	Project  string   // name given to policies as data.tfgate.project.name
	Masks    []string // literal secrets to mask besides the plan's own
	Print    io.Writer
}

// EvalPlan judges a plan JSON document with the policies of Source. Only plans are judged
// (state or garbage is an error, never a pass), and the result is masked with the plan's
// secrets like its rendering.
func EvalPlan(ctx context.Context, opts EvalOptions) (policy.Result, error) {
	engine, err := policy.Load(ctx, opts.Source, policy.Options{PrintWriter: opts.Print})
	if err != nil {
		return policy.Result{}, err
	}
	tfplan, err := plan.Decode(opts.Plan)
	if err != nil {
		return policy.Result{}, fmt.Errorf("%s: %w", opts.PlanName, err)
	}
	mask := plan.Summarise(tfplan, plan.Options{Masks: opts.Masks}).Mask
	res := engine.Eval(ctx, opts.Plan, policy.Project{Name: opts.Project, Dir: ".", Workspace: "default",
		ChangedFiles: []string{}, Mask: mask})
	return MaskPolicyResult(res, mask), nil
}
