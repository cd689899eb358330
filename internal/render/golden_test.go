package render

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	goldenfile "github.com/tfgate/tfgate/internal/golden"

	"github.com/tfgate/tfgate/internal/plan"
	"github.com/tfgate/tfgate/internal/report"
	"github.com/tfgate/tfgate/internal/secret"
)

// fixtureSecrets are the sensitive values planted in testdata/plans; no rendered output
// may contain them, so every golden test is a redaction test too.
var fixtureSecrets = []string{"hunter2", "db-secret", "variable-secret", secretHead, secretTail, "c2VjcmV0"}

// golden compares got with testdata/<TestName>.golden (rewritten with -update).
func golden(t *testing.T, got []byte) {
	t.Helper()
	for _, s := range fixtureSecrets {
		if bytes.Contains(got, []byte(s)) {
			t.Fatalf("output contains the secret %q:\n%s", s, got)
		}
	}
	goldenfile.Check(t, goldenfile.Path(t.Name()), got)
}

// fixtures are plan JSON files under testdata/plans: hand-written ones covering every
// action kind, nested sensitive values and unknowns, and one made by terraform 1.5.7.
var fixtures = []string{"mixed", "sensitive", "unknown", "terraform-1.5.7", "empty"}

func loadChanges(t *testing.T, name string) *plan.Changes {
	t.Helper()
	if name == "empty" {
		p, err := plan.Decode([]byte(`{"format_version":"1.2","terraform_version":"1.9.8","planned_values":{}}`))
		if err != nil {
			t.Fatal(err)
		}
		return plan.Summarise(p, plan.Options{})
	}
	data, err := os.ReadFile(filepath.Join("testdata", "plans", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := plan.Decode(data)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return plan.Summarise(p, plan.Options{Masker: secret.NewMasker(nil).With("console-user")})
}

func testReport(t *testing.T) report.Run {
	return report.Run{
		Base:      "origin/main",
		MergeBase: "3f2c1aa",
		Projects: []report.Project{
			{Name: "envs/dev/app", Dir: "envs/dev/app", Workspace: "default", Status: report.StatusPlanned,
				Duration: 2100 * time.Millisecond, Changes: loadChanges(t, "terraform-1.5.7")},
			{Name: "envs/prod/app", Dir: "envs/prod/app", Workspace: "prod", Status: report.StatusPlanned,
				Duration: 2400 * time.Millisecond, Changes: loadChanges(t, "mixed"), Bundle: "out/envs-prod-app"},
			{Name: "envs/prod/network", Dir: "envs/prod/network", Workspace: "default", Status: report.StatusFailed,
				Duration: 800 * time.Millisecond,
				Error:    "Error: Reference to undeclared input variable\n\n  on main.tf line 5, in resource \"terraform_data\" \"x\":\n   5:   input = var.\x1b[31mb\x1b[0m\n"},
			{Name: "envs/staging/db", Dir: "envs/staging/db", Status: report.StatusPlanned,
				Duration: 1500 * time.Millisecond, Changes: loadChanges(t, "empty")},
		},
	}
}

func TestText(t *testing.T) {
	tests := []struct {
		name string
		opts TextOptions
	}{
		{"plain", TextOptions{}},
		{"color", TextOptions{Color: true}},
		{"wide", TextOptions{Width: 140}},
		{"narrow", TextOptions{Width: 50}},
	}
	r := testReport(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Text(&buf, r, tt.opts); err != nil {
				t.Fatal(err)
			}
			golden(t, buf.Bytes())
		})
	}
}

func TestTextSmallReports(t *testing.T) {
	tests := []struct {
		name string
		r    report.Run
	}{
		{"no projects", report.Run{Base: "origin/main", MergeBase: "3f2c1aa"}},
		{"all failed", report.Run{Projects: []report.Project{{Name: "a", Status: report.StatusFailed, Error: "boom"}, {Name: "b", Status: report.StatusFailed}}}},
		{"no changes", report.Run{Projects: []report.Project{{Name: "a", Status: report.StatusPlanned, Changes: loadChanges(t, "empty")}}}},
		{"interrupted", report.Run{Projects: []report.Project{
			{Name: "a", Status: report.StatusPlanned, Changes: loadChanges(t, "empty")},
			{Name: "b", Status: report.StatusInterrupted, Error: "terraform plan in b: interrupted"},
			{Name: "c", Status: report.StatusNotStarted, Error: "the run was interrupted before it started"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Text(&buf, tt.r, TextOptions{}); err != nil {
				t.Fatal(err)
			}
			golden(t, buf.Bytes())
		})
	}
}

func TestJSON(t *testing.T) {
	var buf bytes.Buffer
	if err := JSON(&buf, testReport(t)); err != nil {
		t.Fatal(err)
	}
	golden(t, buf.Bytes())
}

func TestPlanText(t *testing.T) {
	for _, name := range fixtures {
		for _, color := range []bool{false, true} {
			sub := name
			if color {
				sub += "-color"
			}
			t.Run(sub, func(t *testing.T) {
				var buf bytes.Buffer
				if err := PlanText(&buf, loadChanges(t, name), TextOptions{Color: color}); err != nil {
					t.Fatal(err)
				}
				golden(t, buf.Bytes())
			})
		}
	}
}

func TestPlanJSON(t *testing.T) {
	for _, name := range fixtures {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := PlanJSON(&buf, loadChanges(t, name)); err != nil {
				t.Fatal(err)
			}
			golden(t, buf.Bytes())
		})
	}
}
