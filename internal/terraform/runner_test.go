package terraform

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const dataConfig = `
variable "name" {
  type    = string
  default = "a"
}

resource "terraform_data" "x" {
  input = var.name
}

output "workspace" {
  value = terraform.workspace
}
`

// planJSON is the part of `show -json` the tests look at.
type planJSON struct {
	FormatVersion string `json:"format_version"`
	Variables     map[string]struct {
		Value any `json:"value"`
	} `json:"variables"`
	ResourceChanges []struct {
		Address string `json:"address"`
		Change  struct {
			Actions []string `json:"actions"`
		} `json:"change"`
	} `json:"resource_changes"`
	OutputChanges map[string]struct {
		After any `json:"after"`
	} `json:"output_changes"`
}

func newTestRunner(t *testing.T, files map[string]string, env map[string]string) (Runner, string, *bytes.Buffer) {
	t.Helper()
	return newTestRunnerWith(t, realTerraform(t), files, env)
}

func newTestRunnerWith(t *testing.T, bin Binary, files map[string]string, env map[string]string) (Runner, string, *bytes.Buffer) {
	t.Helper()
	dir := writeFiles(t, files)
	var log bytes.Buffer
	r, err := NewRunner(dir, bin, RunnerOptions{Env: env, Log: &log, Name: "envs/test"})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Init(context.Background()); err != nil {
		t.Fatal(err)
	}
	return r, dir, &log
}

func planAndShow(t *testing.T, r Runner, opts PlanOptions) (bool, planJSON, []byte) {
	t.Helper()
	ctx := context.Background()
	if opts.Out == "" {
		opts.Out = "tfgate.tfplan"
	}
	changes, err := r.Plan(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := r.ShowPlan(ctx, opts.Out)
	if err != nil {
		t.Fatal(err)
	}
	var p planJSON
	if err := json.Unmarshal(raw, &p); err != nil {
		t.Fatalf("show -json output is not JSON: %v", err)
	}
	return changes, p, raw
}

func TestRunnerPlanShow(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	r, dir, log := newTestRunner(t, map[string]string{"main.tf": dataConfig}, env)

	changes, p, raw := planAndShow(t, r, PlanOptions{})
	if !changes {
		t.Error("first plan: hasChanges = false, want true")
	}
	if len(p.ResourceChanges) != 1 || p.ResourceChanges[0].Address != "terraform_data.x" ||
		strings.Join(p.ResourceChanges[0].Change.Actions, ",") != "create" {
		t.Errorf("resource changes = %+v, want terraform_data.x create", p.ResourceChanges)
	}
	// ShowPlan returns terraform's bytes untouched.
	direct := runDirect(t, realTerraform(t), dir, env, "show", "-json", "tfgate.tfplan")
	if !bytes.Equal(raw, direct) {
		t.Errorf("ShowPlan bytes differ from `terraform show -json`:\n%s\n%s", raw, direct)
	}
	if !strings.Contains(log.String(), "successfully initialized") || !strings.Contains(log.String(), "terraform_data.x: Plan to create") {
		t.Errorf("log lacks init and plan output:\n%s", log)
	}
	// Plan JSON carries sensitive values in clear text; it must not reach the log.
	if strings.Contains(log.String(), `"format_version"`) {
		t.Error("log contains the show -json output")
	}

	runDirect(t, realTerraform(t), dir, env, "apply", "-input=false", "-no-color", "tfgate.tfplan")
	changes, p, _ = planAndShow(t, r, PlanOptions{})
	if changes {
		t.Errorf("plan after apply: hasChanges = true, want false; changes %+v", p.ResourceChanges)
	}
	changes, p, _ = planAndShow(t, r, PlanOptions{Destroy: true})
	if !changes || len(p.ResourceChanges) != 1 || strings.Join(p.ResourceChanges[0].Change.Actions, ",") != "delete" {
		t.Errorf("destroy plan: hasChanges %v, changes %+v; want a delete", changes, p.ResourceChanges)
	}
	changes, _, _ = planAndShow(t, r, PlanOptions{RefreshOnly: true})
	if changes {
		t.Error("refresh-only plan with no drift: hasChanges = true, want false")
	}
}

func TestRunnerVariables(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"main.tf":          dataConfig,
		"prod.tfvars":      `name = "prod"`,
		"vars/eu.tfvars":   `name = "eu"`,
		"terraform.tfvars": `name = "auto"`,
	}
	tests := []struct {
		name     string
		env      map[string]string
		varFiles []string
		want     string
	}{
		{name: "terraform.tfvars", want: "auto"},
		{name: "var file", varFiles: []string{"prod.tfvars"}, want: "prod"},
		{name: "last var file wins", varFiles: []string{"prod.tfvars", "vars/eu.tfvars"}, want: "eu"},
		// TF_VAR_ has lower precedence than terraform.tfvars, so use a config without it.
		{name: "TF_VAR_ from Env", env: map[string]string{"TF_VAR_name": "from-env"}, want: "from-env"},
	}
	bin := realTerraform(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := testEnv(t)
			for k, v := range tt.env {
				env[k] = v
			}
			fs := files
			if tt.env != nil {
				fs = map[string]string{"main.tf": dataConfig}
			}
			r, _, _ := newTestRunnerWith(t, bin, fs, env)
			_, p, _ := planAndShow(t, r, PlanOptions{VarFiles: tt.varFiles})
			if got := p.Variables["name"].Value; got != tt.want {
				t.Errorf("var.name = %v, want %q", got, tt.want)
			}
		})
	}
}

// TestRunnerProcessEnvNotUsed cannot run in parallel: it sets a process environment
// variable that terraform must not see. Terraform is a stand-in that writes down what of
// the environment reached it: the runner's own, never the process's.
func TestRunnerProcessEnvNotUsed(t *testing.T) {
	t.Setenv("TF_VAR_name", "from-process")
	seen := filepath.Join(t.TempDir(), "seen")
	fake := writeFake(t, t.TempDir(), "terraform", "1.5.7", map[string]string{
		"init": ":",
		"plan": `echo "name=${TF_VAR_name-unset} given=${TF_VAR_given-unset}" >` + seen,
	})
	bin, err := Resolve(context.Background(), ResolveOptions{Override: fake})
	if err != nil {
		t.Fatal(err)
	}
	env := testEnv(t)
	env["TF_VAR_given"] = "yes"
	r, _, _ := newTestRunnerWith(t, bin, map[string]string{"main.tf": dataConfig}, env)
	if _, err := r.Plan(context.Background(), PlanOptions{Out: "p"}); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(seen)
	if err != nil {
		t.Fatal(err)
	}
	if want := "name=unset given=yes\n"; string(got) != want {
		t.Errorf("terraform saw %q, want %q: only the runner's environment reaches it, never the process's", got, want)
	}
}

func TestRunnerWorkspace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r, dir, _ := newTestRunner(t, map[string]string{"main.tf": dataConfig}, testEnv(t))

	steps := []string{"default", "staging", "staging", "prod", "default", "staging", ""}
	for _, ws := range steps {
		if err := r.SelectWorkspace(ctx, ws); err != nil {
			t.Fatalf("select %q: %v", ws, err)
		}
		_, p, _ := planAndShow(t, r, PlanOptions{})
		want := ws
		if want == "" {
			want = "default"
		}
		if got := p.OutputChanges["workspace"].After; got != want {
			t.Fatalf("after selecting %q, plan ran in workspace %v", ws, got)
		}
	}
	for _, ws := range []string{"staging", "prod"} {
		if _, err := os.Stat(filepath.Join(dir, "terraform.tfstate.d", ws)); err != nil {
			t.Errorf("workspace %s was not created: %v", ws, err)
		}
	}
}

func TestRunnerErrors(t *testing.T) {
	t.Parallel()
	bin := realTerraform(t)
	tests := []struct {
		name  string
		files map[string]string
		plan  PlanOptions
		want  []string // $BIN: the flavour, terraform or tofu
	}{
		{
			name:  "broken HCL",
			files: map[string]string{"main.tf": "resource \"terraform_data\" \"x\" {\n  input = \n}\n"},
			want:  []string{"$BIN init in envs/test: exit status 1", "main.tf line 2"},
		},
		{
			name:  "undeclared variable",
			files: map[string]string{"main.tf": "resource \"terraform_data\" \"x\" {\n  input = var.nope\n}\n"},
			want:  []string{"$BIN plan in envs/test: exit status 1", "Reference to undeclared input variable", "on main.tf line 2"},
		},
		{
			name:  "missing var file",
			files: map[string]string{"main.tf": dataConfig},
			plan:  PlanOptions{VarFiles: []string{"missing.tfvars"}},
			want:  []string{"$BIN plan in envs/test: exit status 1", "missing.tfvars"},
		},
		{
			name:  "destroy and refresh-only",
			files: map[string]string{"main.tf": dataConfig},
			plan:  PlanOptions{Destroy: true, RefreshOnly: true},
			want:  []string{"$BIN plan in envs/test: destroy and refresh-only cannot be combined"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			r, err := NewRunner(writeFiles(t, tt.files), bin, RunnerOptions{Env: testEnv(t), Name: "envs/test"})
			if err != nil {
				t.Fatal(err)
			}
			err = r.Init(ctx)
			if err == nil {
				_, err = r.Plan(ctx, tt.plan)
			}
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				w = strings.ReplaceAll(w, "$BIN", bin.Flavor)
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
			if strings.Contains(err.Error(), "\x1b[") {
				t.Errorf("error contains ANSI escapes: %q", err)
			}
			var ce *CommandError
			if strings.Contains(tt.want[0], "exit status") && !errors.As(err, &ce) {
				t.Errorf("error is %T, want *CommandError", err)
			}
		})
	}
}

// A show that fails says which command in which project, and what terraform said (a
// stand-in that refuses the file as terraform does).
func TestShowPlanMissingFile(t *testing.T) {
	t.Parallel()
	fake := writeFake(t, t.TempDir(), "terraform", "1.5.7", map[string]string{
		"init": ":",
		"show": `for a; do file=$a; done; echo "Error: Failed to read the given file as a state or plan file: open $file: no such file or directory" >&2; exit 1`,
	})
	bin, err := Resolve(context.Background(), ResolveOptions{Override: fake})
	if err != nil {
		t.Fatal(err)
	}
	r, _, _ := newTestRunnerWith(t, bin, map[string]string{"main.tf": dataConfig}, testEnv(t))
	_, err = r.ShowPlan(context.Background(), "nope.tfplan")
	if err == nil || !strings.Contains(err.Error(), "terraform show in envs/test: exit status 1") || !strings.Contains(err.Error(), "nope.tfplan") {
		t.Errorf("got %v, want a show error naming the file", err)
	}
}

// TestRunnerProgress plans and applies with the real terraform and checks the counts its
// machine-readable UI gives: refreshes while the plan walks the state, the changes at its
// end, and an apply's completions out of the total it announces.
func TestRunnerProgress(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	config := "resource \"terraform_data\" \"r\" {\n  count = 5\n  input = count.index\n}\n"
	r, dir, _ := newTestRunner(t, map[string]string{"main.tf": config}, testEnv(t))
	var plans, applies []Progress
	record := func(to *[]Progress) func(Progress) { return func(p Progress) { *to = append(*to, p) } }

	changes, err := r.Plan(ctx, PlanOptions{Out: "p", Progress: record(&plans)})
	if err != nil || !changes {
		t.Fatalf("plan: %v, changes %v", err, changes)
	}
	last := plans[len(plans)-1]
	if last.Refreshed != 0 || last.Planned != 5 || last.Summary == nil || last.Summary.Add != 5 {
		t.Errorf("first plan: %+v %+v", last, last.Summary)
	}
	if err := r.Apply(ctx, "p", ApplyOptions{Progress: record(&applies)}); err != nil {
		t.Fatal(err)
	}
	last = applies[len(applies)-1]
	if last.ToApply != 5 || last.Applied != 5 || last.Failed != 0 || last.Summary == nil || last.Summary.Operation != "apply" {
		t.Errorf("apply: %+v %+v", last, last.Summary)
	}

	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(strings.Replace(config, "count = 5", "count = 3", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	plans = nil
	if _, err := r.Plan(ctx, PlanOptions{Out: "p2", Progress: record(&plans)}); err != nil {
		t.Fatal(err)
	}
	last = plans[len(plans)-1]
	if last.Refreshed != 5 || last.Planned != 2 || last.Summary == nil || last.Summary.Remove != 2 {
		t.Errorf("plan over 5 resources in state, 2 removed: %+v %+v", last, last.Summary)
	}
}

// TestRunnerDiagnostics checks the errors of a -json plan: terraform's text, with the
// column, and without the lines of a var file.
func TestRunnerDiagnostics(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	files := map[string]string{
		"main.tf":       "variable \"pw\" {\n  type      = string\n  sensitive = true\n  default   = \"d\"\n}\nresource \"terraform_data\" \"x\" {\n  input = var.pw\n  bogus = 1\n}\n",
		"secret.tfvars": "pw = \"SEKRIT-PW-333\" oops\n",
	}
	var log bytes.Buffer
	r, err := NewRunner(writeFiles(t, files), realTerraform(t), RunnerOptions{Env: testEnv(t), Name: "envs/d", Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Init(ctx); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		varFiles []string
		want     []string
	}{
		{[]string{"secret.tfvars"}, []string{"terraform plan in envs/d: exit status 1\n", "Error: Missing newline after argument",
			"on secret.tfvars line 1, column 22:", "1: (line from a var file hidden: it may hold secrets)"}},
		{nil, []string{"Error: Unsupported argument", `on main.tf line 8, column 3, in resource "terraform_data" "x":`,
			"   8:   bogus = 1", `An argument named "bogus" is not expected here.`}},
	} {
		_, err := r.Plan(ctx, PlanOptions{VarFiles: tt.varFiles})
		var ce *CommandError
		if !errors.As(err, &ce) {
			t.Fatalf("got %T %v, want *CommandError", err, err)
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("error lacks %q:\n%v", w, err)
			}
		}
		if strings.Contains(err.Error(), "SEKRIT") || strings.Contains(err.Error(), `"@level"`) {
			t.Errorf("error quotes the var file or the JSON:\n%v", err)
		}
	}
	if strings.Contains(log.String(), "SEKRIT") {
		t.Errorf("the log quotes the var file:\n%s", log.String())
	}
}
