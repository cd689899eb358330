package pipeline

import (
	"errors"

	"github.com/tfgate/tfgate/internal/policy"
)

// MaskPolicyResult passes every string of a policy result through mask. Policies read the raw
// plan, sensitive values included, and a message may quote one ("password is …"): the
// result must be masked like the plan's own rendering before anyone sees it.
func MaskPolicyResult(r policy.Result, mask func(string) string) policy.Result {
	out := r
	out.Findings = make([]policy.Finding, len(r.Findings))
	for i, f := range r.Findings {
		f.Msg = mask(f.Msg)
		f.Address = mask(f.Address)
		if f.Metadata != nil {
			f.Metadata = maskValue(f.Metadata, mask).(map[string]any)
		}
		out.Findings[i] = f
	}
	if r.Err != nil {
		if masked := mask(r.Err.Error()); masked != r.Err.Error() {
			out.Err = errors.New(masked)
		}
	}
	return out
}

func maskValue(v any, mask func(string) string) any {
	switch v := v.(type) {
	case string:
		return mask(v)
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			m[mask(k)] = maskValue(e, mask)
		}
		return m
	case []any:
		l := make([]any, len(v))
		for i, e := range v {
			l[i] = maskValue(e, mask)
		}
		return l
	default:
		return v
	}
}
