package matrixresult

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tfgate/tfgate/internal/plan"
	"github.com/tfgate/tfgate/internal/policy"
	"github.com/tfgate/tfgate/internal/render"
	"github.com/tfgate/tfgate/internal/report"
	"github.com/tfgate/tfgate/internal/secret"
)

func readPlan(t *testing.T, name string) *plan.Changes {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "render", "testdata", "plans", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := plan.Read(data, plan.Options{Masker: secret.NewMasker(nil).With("console-user")})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// richRun has a little of everything a renderer branches on.
func richRun(t *testing.T, dir string) report.Run {
	joined := errors.Join(errors.New("policies/a.rego:3: eval_conflict_error"), errors.New("policies/b.rego:9: timeout"))
	return report.Run{
		Kind: report.KindPlan, Base: "0123456789abcdef0123456789abcdef01234567", MergeBase: "3f2c1aa",
		Policies: "policies/ at base commit 3f2c1aa (origin/main)", PolicyNotes: []string{"this change edits policies/x.rego"},
		Notes: []string{"the Terraform code in old was removed"},
		Scope: &report.Scope{Files: []string{"envs/dev/app/main.tf", "modules/a/x.tf", "old/main.tf", "scripts/x.sh"},
			Touches: []report.Touch{{Project: "envs/dev/app", Workspace: "default", File: "envs/dev/app/main.tf"},
				{Project: "envs/prod/app", Workspace: "prod", File: "modules/a/x.tf", Module: "modules/a"}},
			Shared: []string{"scripts/x.sh"}, Dropped: []report.Dropped{{Name: "old", How: report.DropRemoved, Files: []string{"old/main.tf"}}}},
		Projects: []report.Project{
			{Name: "envs/dev/app", Dir: "envs/dev/app", Workspace: "default", Status: report.StatusPlanned,
				Duration: 2100*time.Millisecond + 7, Changes: readPlan(t, "terraform-1.5.7"), Bundle: filepath.Join(dir, "envs_dev_app", "tfplan"),
				Policy: &policy.Result{Verdict: policy.VerdictWarn, Findings: []policy.Finding{
					{Level: policy.LevelWarn, Rule: "warn", Package: "data.tfgate.rules.blast_radius", Msg: "big", Address: "terraform_data.a",
						Metadata: map[string]any{"limit": json.Number("10"), "who": "x"}}}, Excepted: []string{}}},
			{Name: "envs/prod/app", Dir: "envs/prod/app", Workspace: "prod", Status: report.StatusPlanned,
				Changes: readPlan(t, "mixed"), Bundle: filepath.Join(dir, "envs_prod_app@prod"),
				Policy: &policy.Result{Verdict: policy.VerdictError, Findings: []policy.Finding{
					{Level: policy.LevelDeny, Rule: "deny", Package: "data.tfgate.rules.protected_resources", Msg: "protected"}},
					Excepted: []string{"data.main.deny_x"}, Err: joined}},
			{Name: "envs/prod/db", Dir: "envs/prod/db", Status: report.StatusPlanned, Changes: readPlan(t, "sensitive"),
				Policy: &policy.Result{Verdict: policy.VerdictError, Findings: []policy.Finding{}, Err: fmt.Errorf("a: %w; b: %w", errors.New("x"), errors.New("y"))}},
			{Name: "envs/prod/unknown", Dir: "envs/prod/unknown", Status: report.StatusPlanned, Changes: readPlan(t, "unknown"),
				Policy: &policy.Result{Verdict: policy.VerdictError, Err: errors.New("one error")}},
			{Name: "envs/prod/network", Dir: "envs/prod/network", Status: report.StatusFailed,
				Error: "Error: Unsupported argument\n\n  on main.tf line 2, in resource \"terraform_data\" \"a\":"},
			{Name: "envs/prod/later", Dir: "envs/prod/later", Status: report.StatusNotStarted, Error: "envs/prod/network did not succeed"},
			{Name: "gated", Dir: "gated", Status: report.StatusRefused, Gate: &report.Gate{Reasons: []report.Reason{{Code: "approvals", Text: "needs 2 approvals", Pending: true}},
				Approvals: []report.Approval{{Login: "alice", At: time.Date(2025, 1, 2, 3, 4, 5, 6, time.UTC), Commit: "abc"}}},
				Apply:       &report.Apply{PlanSHA256: "ff", InputHash: "ee", TerraformVersion: "1.5.7", Summary: plan.Summary{Add: 1}},
				Suggestions: []string{"main.tf:1 x"}, Issue: "https://github.example/acme/infra/issues/1"},
		},
	}
}

// Everything tfgate renders from a run is the same from the run read back from its
// result: the comment (every part), the job summary, the status line, the annotations and
// the text and JSON reports.
func TestRoundTripRendersTheSame(t *testing.T) {
	dir := t.TempDir()
	run := richRun(t, dir)
	f := File{TfgateVersion: "test", Commit: strings.Repeat("a", 40), PR: 42, Asked: []string{"envs/dev/app"}}
	if err := Write(dir, f, run); err != nil {
		t.Fatal(err)
	}
	got, err := Read(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	if got.Commit != f.Commit || got.PR != 42 || got.TfgateVersion != "test" || !reflect.DeepEqual(got.Asked, f.Asked) {
		t.Errorf("header read back as %+v", got.File)
	}
	back := got.Decoded
	opts := render.MarkdownOptions{Version: "v1", Commit: f.Commit, RunURL: "https://github.example/acme/infra/actions/runs/1"}
	small := opts
	small.Limit = 6000 // several parts
	for name, r := range map[string]func(report.Run) string{
		"comment":     func(r report.Run) string { return strings.Join(render.CommentParts(r, opts), "\f") },
		"split":       func(r report.Run) string { return strings.Join(render.CommentParts(r, small), "\f") },
		"summary":     func(r report.Run) string { return render.StepSummary(r, opts) },
		"status":      render.StatusDescription,
		"annotations": func(r report.Run) string { return fmt.Sprint(render.Annotations(r)) },
		"markdown": func(r report.Run) string {
			var b bytes.Buffer
			_ = render.Markdown(&b, r, opts)
			return b.String()
		},
		"text": func(r report.Run) string {
			var b bytes.Buffer
			_ = render.Text(&b, r, render.TextOptions{Width: 100})
			return b.String()
		},
		"json": func(r report.Run) string {
			var b bytes.Buffer
			_ = render.JSON(&b, r)
			return b.String()
		},
	} {
		if want, have := r(run), r(back); want != have {
			t.Errorf("%s differs after the round trip:\nwant:\n%s\ngot:\n%s", name, want, have)
		}
	}
	// The report in the file is the JSON report of the run.
	var want bytes.Buffer
	if err := render.JSON(&want, run); err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	if err := errors.Join(json.Compact(&a, want.Bytes()), json.Compact(&b, got.Report)); err != nil || a.String() != b.String() {
		t.Errorf("report differs from render.JSON:\n%s", got.Report)
	}
	// And field for field: encoding the run read back gives the same document.
	if a, b := encodeRun(run, dir), encodeRun(back, dir); !reflect.DeepEqual(a, b) {
		t.Errorf("the run read back encodes differently:\n%+v\n%+v", a, b)
	}
	if back.Projects[0].Bundle != run.Projects[0].Bundle || back.Projects[1].Bundle != run.Projects[1].Bundle {
		t.Errorf("bundles read back as %q, %q", back.Projects[0].Bundle, back.Projects[1].Bundle)
	}
	if back.Projects[4].Changes != nil || back.Projects[0].Policy.Excepted == nil || back.Projects[3].Policy.Findings != nil {
		t.Error("nil and empty are not kept apart")
	}
}

// The result travels with its bundles: moved elsewhere (an artifact downloaded), its
// bundle paths point into the new place.
func TestBundlesAreRelativeToTheResult(t *testing.T) {
	dir := t.TempDir()
	run := report.Run{Kind: report.KindPlan, Projects: []report.Project{{Name: "a", Status: report.StatusPlanned,
		Changes: &plan.Changes{}, Bundle: filepath.Join(dir, "a", "tfplan")}}}
	if err := Write(dir, File{}, run); err != nil {
		t.Fatal(err)
	}
	moved := filepath.Join(t.TempDir(), "artifact")
	if err := os.Rename(dir, moved); err != nil {
		t.Fatal(err)
	}
	r, err := Read(filepath.Join(moved, FileName))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := r.Decoded.Projects[0].Bundle, filepath.Join(moved, "a", "tfplan"); got != want {
		t.Errorf("bundle %s, want %s", got, want)
	}
	if name, ok := BundleDir(r.Decoded.Projects[0].Bundle, moved); !ok || name != "a" {
		t.Errorf("BundleDir = %q, %v", name, ok)
	}
}

func TestReadRefuses(t *testing.T) {
	for name, tt := range map[string]struct{ content, want string }{
		"not json":    {"garbage", "tfgate-result.json: not a tfgate result: invalid character 'g'"},
		"no version":  {`{"run": {}}`, `tfgate-result.json: not a tfgate result (no "tfgate_result" version)`},
		"new version": {`{"tfgate_result": 2, "run": {}}`, "tfgate-result.json: result format 2, this tfgate reads 1: run the matrix jobs and publish with the same tfgate"},
		"escape":      {}, // written below
	} {
		content := tt.content
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, FileName)
			if name == "escape" {
				content = `{"tfgate_result": 1, "run": {"kind": "plan", "projects": [{"name": "a", "bundle": "../../etc"}]}}`
			}
			if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			r, err := Read(path)
			if name == "escape" {
				if err != nil || r.Decoded.Projects[0].Bundle != "" {
					t.Errorf("a bundle outside the result's directory read as %q (%v)", r.Decoded.Projects[0].Bundle, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Read: %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

// A result is never replaced: --out was empty when the run started.
func TestWriteRefusesToReplace(t *testing.T) {
	dir := t.TempDir()
	if err := Write(dir, File{}, report.Run{Kind: report.KindPlan}); err != nil {
		t.Fatal(err)
	}
	if err := Write(dir, File{}, report.Run{Kind: report.KindPlan}); err == nil {
		t.Fatal("wrote over an existing result")
	}
	st, err := os.Stat(filepath.Join(dir, FileName))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v (%v), want 0600", st.Mode(), err)
	}
}
