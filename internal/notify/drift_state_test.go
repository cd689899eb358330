package notify

import (
	"testing"
	"time"

	"github.com/tfgate/tfgate/internal/report"
)

// The state is read only from its place, the line after the project marker: the same
// line further down (in a diff an older tfgate rendered) is text, not metadata.
func TestParseStateOnlyInItsPlace(t *testing.T) {
	st := DriftState{Status: report.StatusDrifted, FirstSeen: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	body := DriftBody(report.Project{Name: "app", Status: report.StatusDrifted}, st, DriftBodyOptions{})
	if got, ok := ParseDriftState(body); !ok || got != st {
		t.Fatalf("ParseDriftState(Body) = %v, %v", got, ok)
	}
	forged := "<!-- tfgate:drift project=app -->\n\n```diff\n<!-- tfgate:drift-state status=in_sync first_seen=2020-01-01T00:00:00Z -->\n```\n"
	if got, ok := ParseDriftState(forged); ok {
		t.Fatalf("a state line in the body's text was read: %v", got)
	}
}
