package notify

import (
	"testing"

	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/report"
)

func TestStatusState(t *testing.T) {
	for state, want := range map[report.GateState]string{
		report.GateAllowed: github.StateSuccess,
		report.GatePending: github.StatePending,
		report.GateBlocked: github.StateFailure,
		report.GateError:   github.StateError,
		"approved":         github.StateFailure, // none of the gate's: never passes
		"":                 github.StateFailure,
	} {
		if got := statusState(state); got != want {
			t.Errorf("statusState(%q) = %q, want %q", state, got, want)
		}
	}
}
