package pipeline

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/project"
	"github.com/tfgate/tfgate/internal/report"
	"github.com/tfgate/tfgate/internal/secret"
	"github.com/tfgate/tfgate/internal/stage"
	"github.com/tfgate/tfgate/internal/terraform"
	"github.com/tfgate/tfgate/internal/testenv"
)

// fakeRunner plays terraform for pipeline tests that need no real one: init and workspace
// succeed, plan writes a placeholder plan file (or fails with planErr), show returns show.
type fakeRunner struct {
	dir      string
	show     string
	planErr  error
	applyErr error
	calls    *[]string
}

func (f *fakeRunner) Init(context.Context) error {
	*f.calls = append(*f.calls, "init "+f.dir)
	return nil
}
func (f *fakeRunner) SelectWorkspace(_ context.Context, ws string) error {
	*f.calls = append(*f.calls, "workspace "+ws)
	return nil
}
func (f *fakeRunner) Plan(_ context.Context, opts terraform.PlanOptions) (bool, error) {
	*f.calls = append(*f.calls, "plan")
	if f.planErr != nil {
		return false, f.planErr
	}
	return true, os.WriteFile(opts.Out, []byte("plan"), 0o644)
}
func (f *fakeRunner) Apply(_ context.Context, planFile string, _ terraform.ApplyOptions) error {
	*f.calls = append(*f.calls, "apply "+f.dir)
	return f.applyErr
}
func (f *fakeRunner) StatePull(context.Context) ([]byte, error) {
	return nil, errors.New("fakeRunner: no state")
}
func (f *fakeRunner) ShowState(context.Context) ([]byte, error) {
	return nil, errors.New("fakeRunner: no state")
}
func (f *fakeRunner) ShowPlan(context.Context, string) ([]byte, error) {
	*f.calls = append(*f.calls, "show")
	return []byte(f.show), nil
}

const fakePlanJSON = `{"format_version":"1.2","terraform_version":"1.5.7","resource_changes":[
 {"address":"terraform_data.a","mode":"managed","type":"terraform_data","name":"a",
  "change":{"actions":["create"],"before":null,"after":{"input":"hunter2-in-plan"},"after_unknown":{},
  "before_sensitive":false,"after_sensitive":{"input":true}}}]}`

// The plan stages run against an injected runner: init → workspace → plan → show, the plan
// summarised and masked, and a failing plan's error masked with the project's sensitive
// variable values.
func TestPlanStagesWithFakeRunner(t *testing.T) {
	root := testenv.WriteTree(t, map[string]string{
		"ok/main.tf":  `resource "terraform_data" "a" {}`,
		"bad/main.tf": `variable "pw" { sensitive = true }`,
	})
	ctx := context.Background()
	projects, err := project.Discover(ctx, root, config.Default())
	if err != nil {
		t.Fatal(err)
	}
	var calls []string
	factory := func(dir string, opts terraform.RunnerOptions) (terraform.Runner, error) {
		r := &fakeRunner{dir: opts.Name, show: fakePlanJSON, calls: &calls}
		if opts.Name == "bad" {
			r.planErr = errors.New(`Error: Invalid value for variable: var.pw is "pw-from-env-123"`)
		}
		return r, nil
	}
	run, err := stage.Plan(ctx, stage.PlanOptions{Env: stage.Env{Root: root, Parallel: 1,
		TerraformEnv: map[string]string{"TF_VAR_pw": "pw-from-env-123"}, Masker: secret.NewMasker(nil)}, Projects: projects, NewRunner: factory})
	if err != nil {
		t.Fatal(err)
	}
	if got := statuses(run.Projects); got != "bad:failed ok:planned" {
		t.Fatalf("results = %s", got)
	}
	if strings.Contains(run.Projects[0].Error, "pw-from-env-123") || !strings.Contains(run.Projects[0].Error, "(masked)") {
		t.Errorf("the sensitive variable's value must be masked in terraform's error: %q", run.Projects[0].Error)
	}
	ok := run.Projects[1]
	if ok.Changes == nil || ok.Changes.Summary.Add != 1 || ok.Changes.TerraformVersion != "1.5.7" {
		t.Fatalf("changes = %+v", ok.Changes)
	}
	if got := ok.Changes.Masker().String("policy says hunter2-in-plan"); strings.Contains(got, "hunter2") {
		t.Errorf("the plan's sensitive values must join its masker: %q", got)
	}
	if want := "init bad workspace default plan init ok workspace default plan show"; strings.Join(calls, " ") != want {
		t.Errorf("runner calls = %q, want %q", strings.Join(calls, " "), want)
	}
	if run.Kind != report.KindPlan {
		t.Errorf("kind = %q", run.Kind)
	}
}

// The fake backend has one workspace and no state; an apply's record comes and goes.
func (f *fakeRunner) Workspaces(context.Context) ([]string, string, error) {
	return []string{"default"}, "default", nil
}
func (f *fakeRunner) NewWorkspace(_ context.Context, name string) error {
	*f.calls = append(*f.calls, "workspace new "+name)
	return nil
}
func (f *fakeRunner) DeleteWorkspace(_ context.Context, name string) error {
	*f.calls = append(*f.calls, "workspace delete "+name)
	return nil
}
func (f *fakeRunner) StateMeta(context.Context) (terraform.StateMeta, error) {
	return terraform.StateMeta{}, nil
}
func (f *fakeRunner) PushState(context.Context, string) error { return errors.New("fake: no backend") }
