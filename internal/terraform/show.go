package terraform

import (
	"bytes"
	"context"
	"fmt"
	"io"
)

// ShowPlan runs `show -json` itself rather than through tfexec: tfexec only
// offers a decoded tfjson.Plan, while tfgate hashes, stores and parses the
// exact bytes terraform printed. The JSON holds sensitive values in clear
// text, so it goes to the caller only, never to the log.
func (r *runner) ShowPlan(ctx context.Context, planFile string) ([]byte, error) {
	if planFile == "" {
		return nil, fmt.Errorf("%s show in %s: no plan file given", r.bin.Flavor, r.name)
	}
	var out bytes.Buffer
	err := r.run(ctx, "show", func() error {
		cmd := r.direct(ctx, r.execEnv(), "show", "-json", "-no-color", planFile)
		cmd.Stdout = &out
		cmd.Stderr = io.MultiWriter(r.log, r.stderr)
		return r.runDirect(cmd)
	})
	if err != nil {
		return nil, err
	}
	if out.Len() == 0 {
		return nil, fmt.Errorf("%s show -json in %s: printed nothing for %s", r.bin.Flavor, r.name, planFile)
	}
	return out.Bytes(), nil
}
