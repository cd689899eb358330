package stage

import (
	"fmt"
	"strings"

	"github.com/tfgate/tfgate/internal/cost"
)

// priceCost prices the project's plan (raw, `show -json`) into Result.Cost: from the
// Infracost file when the run has one, else from the policies' price catalogue. Neither
// configured: no cost. Reasons quote plan values, so they are masked like the plan.
func (r *ProjectRun) priceCost(raw []byte) error {
	c, err := PriceCost(raw, r.Opts.Infracost, r.Opts.Policies.Prices, r.Project.Dir, r.Project.Workspace)
	if err != nil {
		return fmt.Errorf("price the plan of %s: %w", r.Project.Name, err)
	}
	r.cost, r.Result.Cost = c, c.Masked(r.Result.Changes.Masker())
	return nil
}

// PriceCost is a plan's cost: from ic when given (the project's Infracost project, nil when
// the file has none), else from the catalogue (nil: no cost).
func PriceCost(raw []byte, ic *cost.Infracost, prices *cost.Catalogue, dir, workspace string) (*cost.Cost, error) {
	switch {
	case ic != nil:
		return ic.ForProject(dir, workspace)
	case prices != nil:
		return prices.Price(raw)
	}
	return nil, nil
}

// CostSource describes where a run's costs come from, for the reader ("" for none).
func CostSource(ic *cost.Infracost, prices *cost.Catalogue) string {
	switch {
	case ic != nil:
		return "Infracost (" + ic.File + ")"
	case prices != nil:
		if prices.Where != "" {
			return "the price catalogue " + prices.File + " at " + prices.Where
		}
		return "the price catalogue " + prices.File
	}
	return ""
}

// where is how a catalogue's file is described: "base commit 3f2c1aa (origin/main)" when
// the policies come from the base commit, nothing for the working tree.
func where(from, source string) string {
	if from != PoliciesFromBase {
		return ""
	}
	if _, after, ok := strings.Cut(source, " at "); ok {
		return after
	}
	return source
}
