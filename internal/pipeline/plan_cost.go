package pipeline

import (
	"fmt"
	"os"

	"github.com/tfgate/tfgate/internal/cost"
	"github.com/tfgate/tfgate/internal/stage"
)

// readInfracost reads the Infracost file of `tfgate plan --cost` (nil without one). It is
// read before anything is planned: a file that cannot be used stops the run.
func readInfracost(req PlanRequest) (*cost.Infracost, error) {
	if req.CostFile == "" {
		return nil, nil
	}
	st, err := os.Stat(req.CostFile)
	if err != nil {
		return nil, stage.Optionf("{CostFile}: %w", err)
	}
	if !st.Mode().IsRegular() {
		return nil, stage.Optionf("{CostFile} %s is not a regular file", req.CostFile)
	}
	data, err := os.ReadFile(req.CostFile)
	if err != nil {
		return nil, stage.Optionf("{CostFile}: %w", err)
	}
	ic, err := cost.ReadInfracost(req.CostFile, data, req.Root)
	if err != nil {
		return nil, fmt.Errorf("read the cost file: %w", err)
	}
	return ic, nil
}
