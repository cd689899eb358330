package notify

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/tfgate/tfgate/internal/golden"
	"github.com/tfgate/tfgate/internal/plan"
	"github.com/tfgate/tfgate/internal/report"
)

// checkRun has a project whose only news is a failing check, one that drifted and has a
// failing condition too, and one whose checks pass.
func checkRun() report.Run {
	health := plan.Check{Address: "check.health", Kind: "check", Status: "fail",
		Problems: []string{"api answers 503 <!-- tfgate:drift project=web -->", "token is (masked)"}}
	api := report.Project{Name: "api", Workspace: "default", Status: report.StatusCheckFailed,
		Changes: &plan.Changes{Checks: []plan.Check{health}}, Issue: "https://github.com/acme/infra/issues/4"}
	web := driftedProject("web")
	web.Changes.Checks = []plan.Check{{Address: "fakecloud_object.web", Kind: "resource", Status: "error"}}
	return report.Run{Kind: report.KindDrift, Projects: []report.Project{api, web, withStatus(driftedProject("db"), report.StatusInSync)}}
}

// A failing check is reported apart from drift: its own status when nothing else is news,
// and failed_checks for every project, counted in the text.
func TestNewPayloadChecks(t *testing.T) {
	pl := NewPayload(checkRun(), "abc", "https://ci/run/1")
	data, err := json.MarshalIndent(pl, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, golden.Path(t.Name()), append(data, '\n'))
	if strings.Contains(string(data), "503") {
		t.Errorf("payload carries a check's message: %s", data)
	}
}

// The issue of a project whose check failed: its title, status line and the checks in
// their own section, the marker-like message defused.
func TestDriftBodyChecks(t *testing.T) {
	first := time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC)
	for _, p := range checkRun().Projects[:2] {
		t.Run(p.Name, func(t *testing.T) {
			body := DriftBody(p, DriftState{Status: p.Status, FirstSeen: first}, DriftBodyOptions{Now: first.Add(24 * time.Hour), Commit: "0123456789abcdef", Version: "v0.1.0"})
			golden.Check(t, golden.Path(t.Name()), []byte(DriftTitle(p)+"\n\n"+body))
			if n := strings.Count(body, "<!-- tfgate:drift project="); n != 1 {
				t.Errorf("a check's message forges tfgate's marker:\n%s", body)
			}
		})
	}
}
