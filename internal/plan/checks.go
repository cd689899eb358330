package plan

import (
	tfjson "github.com/hashicorp/terraform-json"

	"github.com/tfgate/tfgate/internal/secret"
)

// Check is one checkable object whose checks did not pass when the plan was made: a
// `check` block whose assertion failed, or a resource's or output's pre- or postcondition
// (Terraform 1.5 and later report them in the plan's `checks`). A failing check block is
// a warning for terraform, so the plan still succeeds; a failing condition usually fails
// the plan itself.
type Check struct {
	Address  string // check.NAME, a resource address or output.NAME
	Kind     string // "check", "resource" or "output_value"
	Status   string // "fail" or "error" (the condition could not be evaluated)
	Problems []string
}

// failedChecks are the plan's checks whose status is fail or error, in plan order. Their
// messages are the author's error_message, which may quote values: they are masked like
// everything else read from the plan. A check whose result is unknown (it depends on
// values known only after apply) or that passed is not listed.
func failedChecks(checks []tfjson.CheckResultStatic, m *secret.Masker) []Check {
	var out []Check
	for _, cr := range checks {
		if cr.Status != tfjson.CheckStatusFail && cr.Status != tfjson.CheckStatusError {
			continue
		}
		for _, in := range cr.Instances {
			if in.Status != tfjson.CheckStatusFail && in.Status != tfjson.CheckStatusError {
				continue
			}
			c := Check{Address: m.String(in.Address.ToDisplay), Kind: string(cr.Address.Kind), Status: string(in.Status)}
			if c.Address == "" {
				c.Address = m.String(cr.Address.ToDisplay)
			}
			for _, p := range in.Problems {
				c.Problems = append(c.Problems, m.String(p.Message))
			}
			out = append(out, c)
		}
	}
	return out
}
