package policy

import (
	"errors"
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/secret"
)

func TestMasked(t *testing.T) {
	mask := secret.NewMasker(nil).With("hunter2")
	in := Result{
		Verdict: VerdictDeny,
		Findings: []Finding{{
			Level: LevelDeny, Msg: "password hunter2 is weak", Address: "x",
			Metadata: map[string]any{"value": "hunter2", "nested": []any{"hunter2", 1.0}, "hunter2": true},
		}},
		Err: errors.New("eval: hunter2"),
	}
	out := in.Masked(mask)
	got := out.Findings[0].Msg + out.Findings[0].Address + out.Err.Error()
	for k, v := range out.Findings[0].Metadata {
		got += k
		if s, ok := v.(string); ok {
			got += s
		}
		if l, ok := v.([]any); ok {
			got += l[0].(string)
		}
	}
	if strings.Contains(got, "hunter2") {
		t.Fatalf("secret survived masking: %q", got)
	}
	if in.Findings[0].Msg != "password hunter2 is weak" {
		t.Fatal("masking must not modify the input")
	}
}
