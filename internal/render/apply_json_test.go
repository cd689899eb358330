package render

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/report"
)

func TestApplyJSON(t *testing.T) {
	var buf bytes.Buffer
	if err := JSON(&buf, applyReport()); err != nil {
		t.Fatal(err)
	}
	golden(t, buf.Bytes())
	var doc JSONReport
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.JSONReview == nil || doc.PR != 42 || doc.Commit != testMerge || doc.Verdict == nil || doc.Verdict.State != "failure" {
		t.Errorf("review fields: %+v", doc.JSONReview)
	}
	if g := doc.Projects[0].Gate; g == nil || len(g.Approvals) != 2 || !g.Approvals[1].At.Equal(carol.At) {
		t.Errorf("gate: %+v", g)
	}
	if doc.Totals.Summary.Add != 3 || !doc.HasChanges {
		t.Errorf("totals: %+v", doc.Totals)
	}
}

// Lists are never null; a verdict and a project's gate or bundle not evaluated are.
func TestReviewJSONEmpty(t *testing.T) {
	r := report.Run{Kind: report.KindGate, Projects: []report.Project{
		{Name: "a", Status: report.StatusRefused, Gate: &report.Gate{}},
		{Name: "b", Status: report.StatusFailed, Error: "no bundle"},
	}}
	var buf bytes.Buffer
	if err := JSON(&buf, r); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"pr", "reviewed", "commit", "dry_run", "verdict"} {
		if _, ok := doc[k]; !ok {
			t.Errorf("no %q", k)
		}
	}
	if doc["verdict"] != nil {
		t.Errorf("verdict = %v, want null", doc["verdict"])
	}
	ps := doc["projects"].([]any)
	g := ps[0].(map[string]any)["gate"].(map[string]any)
	for _, k := range []string{"reasons", "reason_details", "approvals", "policy_overridden_by"} {
		if l, ok := g[k].([]any); !ok || len(l) != 0 {
			t.Errorf("gate.%s = %v, want []", k, g[k])
		}
	}
	if p := ps[1].(map[string]any); p["gate"] != nil || p["apply"] != nil {
		t.Errorf("project b: gate %v apply %v, want null", p["gate"], p["apply"])
	}
	// A plan document has none of them.
	buf.Reset()
	if err := JSON(&buf, report.Run{Projects: []report.Project{{Name: "a", Status: report.StatusPlanned}}}); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{`"pr"`, `"reviewed"`, `"verdict"`, `"gate"`, `"apply"`, `"statuses"`} {
		if strings.Contains(buf.String(), k) {
			t.Errorf("a plan document has %s", k)
		}
	}
}
