package pipeline

import (
	"context"
	"fmt"

	"github.com/tfgate/tfgate/internal/bundle"
	"github.com/tfgate/tfgate/internal/cost"
	"github.com/tfgate/tfgate/internal/plan"
	"github.com/tfgate/tfgate/internal/policy"
	"github.com/tfgate/tfgate/internal/secret"
	"github.com/tfgate/tfgate/internal/stage"
)

// judgeAgain is the policy verdict of every base commit's policies on t's plan file (raw,
// doc), masked with m. input.cost is priced again from each base's own price catalogue:
// an Infracost file given to the pull request's plan run is not trusted here, and none is
// at hand (docs/cost.md).
func (a *review) judgeAgain(ctx context.Context, t *target, raw []byte, doc *plan.Document, m *secret.Masker, engines []ruleEngine) (*bundle.PolicyVerdict, error) {
	var results []policy.Result
	for _, e := range engines {
		c, err := stage.PriceCost(raw, nil, e.pols.Prices, t.p.Dir, t.p.Workspace)
		if err != nil {
			return nil, fmt.Errorf("price the plan of %s: %w", t.p.Name, err)
		}
		res := e.pols.Engine.EvalValue(ctx, cost.Input(doc.Input(), c), policy.Project{Name: e.pols.ProjectName(t.p.Name, t.p.Dir, t.p.Workspace),
			Dir: t.p.Dir, Workspace: t.p.Workspace, ChangedFiles: stage.ProjectFiles(t.p, a.changed), Masker: m,
			Author: planAuthor(t, a.pr)})
		results = append(results, res.Masked(m))
	}
	return mergeVerdicts(results), nil
}
