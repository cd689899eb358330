package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/drift"
	"github.com/tfgate/tfgate/internal/plan"
	"github.com/tfgate/tfgate/internal/project"
	"github.com/tfgate/tfgate/internal/report"
	"github.com/tfgate/tfgate/internal/secret"
	"github.com/tfgate/tfgate/internal/stage"
	"github.com/tfgate/tfgate/internal/terraform"
	"github.com/tfgate/tfgate/internal/testenv"
)

const (
	driftedPlanJSON = `{"format_version":"1.2","terraform_version":"1.5.7","resource_drift":[
 {"address":"fakecloud_object.web","mode":"managed","type":"fakecloud_object","name":"web",
  "change":{"actions":["update"],"before":{"content":"v1"},"after":{"content":"v2"},"after_unknown":{},
  "before_sensitive":{},"after_sensitive":{}}}]}`
	inSyncPlanJSON = `{"format_version":"1.2","terraform_version":"1.5.7","planned_values":{}}`
)

// Drift runs plan's stages up to show in the pool, decides each status from the plan, calls
// the fold-back hook with the drifted resources only (its lines masked), and leaves no plan
// file behind.
func TestDriftStagesWithFakeRunner(t *testing.T) {
	root := testenv.WriteTree(t, map[string]string{
		"drifted/main.tf": `resource "fakecloud_object" "web" {}`,
		"pending/main.tf": `resource "terraform_data" "a" {}`,
		"insync/main.tf":  `resource "terraform_data" "b" {}`,
		"broken/main.tf":  `resource "terraform_data" "c" {}`,
	})
	ctx := context.Background()
	projects, err := project.Discover(ctx, root, config.Default())
	if err != nil {
		t.Fatal(err)
	}
	var calls []string
	var planFiles []string
	factory := func(dir string, opts terraform.RunnerOptions) (terraform.Runner, error) {
		r := &fakeRunner{dir: opts.Name, calls: &calls}
		switch opts.Name {
		case "drifted":
			r.show = driftedPlanJSON
		case "pending":
			r.show = fakePlanJSON
		case "insync":
			r.show = inSyncPlanJSON
		case "broken":
			r.planErr = os.ErrPermission
		}
		return &recordingRunner{fakeRunner: r, files: &planFiles}, nil
	}
	var hooked []string
	suggest := func(root string, p project.Project, drifted []plan.Resource) []drift.Suggestion {
		for _, r := range drifted {
			hooked = append(hooked, p.Name+" "+r.Address)
		}
		return []drift.Suggestion{{Address: "fakecloud_object.web", Attribute: "content", File: "main.tf", Line: 1,
			Old: `"v1"`, New: `"v2 hunter2-in-plan"`}}
	}
	run, err := checkDrift(ctx, stage.PlanOptions{Env: stage.Env{Root: root, Parallel: 1, Masker: secret.NewMasker(nil).With("hunter2-in-plan")},
		Projects: projects, NewRunner: factory}, suggest)
	if err != nil {
		t.Fatal(err)
	}
	if got := statuses(run.Projects); got != "broken:failed drifted:drifted insync:in_sync pending:pending" {
		t.Errorf("statuses = %s", got)
	}
	if run.Kind != report.KindDrift {
		t.Errorf("kind %s", run.Kind)
	}
	if strings.Join(hooked, ",") != "drifted fakecloud_object.web" {
		t.Errorf("Suggest called for %v, want the drifted project's drifted resource only", hooked)
	}
	if s := run.Projects[1].Suggestions; len(s) != 1 || strings.Contains(s[0], "hunter2") {
		t.Errorf("suggestions %q, want one line, masked", s)
	}
	if len(planFiles) != 4 {
		t.Fatalf("plan files %v", planFiles)
	}
	for _, f := range planFiles {
		if _, err := os.Stat(filepath.Dir(f)); !os.IsNotExist(err) {
			t.Errorf("the plan's scratch directory %s is left behind (%v)", filepath.Dir(f), err)
		}
	}
}

// recordingRunner remembers where plans were written.
type recordingRunner struct {
	*fakeRunner
	files *[]string
}

func (r *recordingRunner) Plan(ctx context.Context, opts terraform.PlanOptions) (bool, error) {
	*r.files = append(*r.files, opts.Out)
	if opts.RefreshOnly || opts.Destroy {
		panic("drift plans normally")
	}
	return r.fakeRunner.Plan(ctx, opts)
}

// drift: false leaves a project out unless it is named.
func TestRunDriftSkipsDriftFalse(t *testing.T) {
	root := testenv.WriteTree(t, map[string]string{
		".tfgate.yaml": "version: 1\nprojects:\n  - {name: a, dir: a, drift: false}\n",
		"a/main.tf":    `resource "terraform_data" "a" {}`,
	})
	cfg, err := config.Load(context.Background(), root, config.FileName, false)
	if err != nil {
		t.Fatal(err)
	}
	run, err := RunDrift(context.Background(), DriftRequest{Env: stage.Env{Root: root, Config: cfg}})
	if err != nil || len(run.Projects) != 0 || len(run.Notes) != 1 || !strings.Contains(run.Notes[0], "drift: false") {
		t.Errorf("run %+v, err %v", run, err)
	}
}
