package terraform

import (
	"context"
	"fmt"
)

// ShowPlan runs `show -json` itself rather than through tfexec: tfexec only
// offers a decoded tfjson.Plan, while tfgate hashes, stores and parses the
// exact bytes terraform printed. The JSON holds sensitive values in clear
// text, so it goes to the caller only, never to the log.
func (r *runner) ShowPlan(ctx context.Context, planFile string) ([]byte, error) {
	if planFile == "" {
		return nil, fmt.Errorf("%s show in %s: no plan file given", r.bin.Flavor, r.name)
	}
	out, err := r.capture(ctx, "show", "show", "-json", "-no-color", planFile)
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s show -json in %s: printed nothing for %s", r.bin.Flavor, r.name, planFile)
	}
	return out, nil
}
