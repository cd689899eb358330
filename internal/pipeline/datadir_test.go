package pipeline

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/project"
	"github.com/tfgate/tfgate/internal/report"
	"github.com/tfgate/tfgate/internal/stage"
	"github.com/tfgate/tfgate/internal/terraform"
	"github.com/tfgate/tfgate/internal/testenv"
)

// dataDirRunner is the fake runner that records the data directory it was given and whether
// it existed when init ran.
type dataDirRunner struct {
	fakeRunner
	dataDir string
	seen    func(dir string, exists bool)
}

func (r *dataDirRunner) Init(ctx context.Context) error {
	_, err := os.Stat(r.dataDir)
	r.seen(r.dataDir, err == nil)
	return r.fakeRunner.Init(ctx)
}

// Each project's run — two workspaces of one directory included — gets a data directory of
// its own, absolute, existing, outside the work tree, and removed when the project is done.
func TestDataDirPerProjectOutsideTheTree(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	root := testenv.WriteTree(t, map[string]string{
		"app/main.tf": `resource "terraform_data" "a" {}`,
		"db/main.tf":  `resource "terraform_data" "b" {}`,
	})
	projects, err := project.Discover(t.Context(), root, config.Default())
	if err != nil {
		t.Fatal(err)
	}
	projects = append(projects, project.Project{Name: "app-staging", Dir: "app", Workspace: "staging", WhenModified: project.DefaultWhenModified})
	var mu sync.Mutex
	var dirs []string
	var calls []string
	factory := func(dir string, opts terraform.RunnerOptions) (terraform.Runner, error) {
		return &dataDirRunner{fakeRunner: fakeRunner{dir: opts.Name, show: fakePlanJSON, calls: &calls}, dataDir: opts.DataDir,
			seen: func(d string, exists bool) {
				mu.Lock()
				defer mu.Unlock()
				if !exists {
					t.Errorf("%s: data directory %s does not exist at init", opts.Name, d)
				}
				dirs = append(dirs, d)
			}}, nil
	}
	run, err := stage.Plan(t.Context(), stage.PlanOptions{Env: stage.Env{Root: root, Parallel: 1, TerraformEnv: map[string]string{"TF_DATA_DIR": ".terraform"}}, Projects: projects, NewRunner: factory})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range run.Projects {
		if p.Status != report.StatusPlanned {
			t.Fatalf("%s: %s %s", p.Name, p.Status, p.Error)
		}
	}
	if len(dirs) != 3 || len(slices.Compact(slices.Sorted(slices.Values(dirs)))) != 3 {
		t.Fatalf("data directories %q, want one per project", dirs)
	}
	for _, d := range dirs {
		if !filepath.IsAbs(d) || !strings.HasPrefix(d, tmp+string(filepath.Separator)) || strings.HasPrefix(d, root) {
			t.Errorf("data directory %s: want a new one in TMPDIR %s, outside the work tree %s", d, tmp, root)
		}
		if _, err := os.Stat(d); !os.IsNotExist(err) {
			t.Errorf("data directory %s left behind: %v", d, err)
		}
	}
}

// A data directory that cannot be made fails the project, naming where and what to do; the
// project's own .terraform is never the fallback, and terraform never runs.
func TestDataDirNotCreatable(t *testing.T) {
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", notDir)
	root := testenv.WriteTree(t, map[string]string{"app/main.tf": `resource "terraform_data" "a" {}`})
	projects, err := project.Discover(t.Context(), root, config.Default())
	if err != nil {
		t.Fatal(err)
	}
	var calls []string
	factory := func(dir string, opts terraform.RunnerOptions) (terraform.Runner, error) {
		return &fakeRunner{dir: opts.Name, show: fakePlanJSON, calls: &calls}, nil
	}
	run, err := stage.Plan(t.Context(), stage.PlanOptions{Env: stage.Env{Root: root}, Projects: projects, NewRunner: factory, OutDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	p := run.Projects[0]
	if p.Status != report.StatusFailed || !strings.Contains(p.Error, "app: terraform's data directory (TF_DATA_DIR) cannot be made in "+notDir) ||
		!strings.Contains(p.Error, "point TMPDIR at a writable directory") {
		t.Errorf("got %s %q", p.Status, p.Error)
	}
	if len(calls) != 0 {
		t.Errorf("terraform ran: %q", calls)
	}
}

// A tracked .terraform refuses the project in every job before terraform runs — apply's
// stages too, which start at init — naming the file; an untracked one does not, nor one
// tracked but not on disk (nothing terraform could read).
func TestCommittedDataDirRefusedBeforeTerraform(t *testing.T) {
	root := testenv.WriteTree(t, map[string]string{
		"app/main.tf":                      `resource "terraform_data" "a" {}`,
		"app/.terraform/terraform.tfstate": `{"version": 3, "backend": {"type": "local", "config": {"path": "stolen.tfstate"}}}`,
		"db/main.tf":                       `resource "terraform_data" "b" {}`,
		"db/.terraform/environment":        "evil",
		"web/main.tf":                      `resource "terraform_data" "c" {}`,
		"web/.terraform/environment":       "evil",
	})
	testenv.Git(t, root, "init", "-q", "-b", "main")
	testenv.Git(t, root, "add", "-A", "-f")
	testenv.Git(t, root, "rm", "-q", "--cached", "db/.terraform/environment") // on disk, untracked
	testenv.Git(t, root, "commit", "-q", "-m", "initial")
	if err := os.RemoveAll(filepath.Join(root, "web", ".terraform")); err != nil { // tracked, not on disk: nothing to read
		t.Fatal(err)
	}
	projects, err := project.Discover(t.Context(), root, config.Default())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		stages []stage.Stage
	}{{"plan", stage.PlanStages}, {"drift", driftStages}, {"apply", applyStages(&applyRecord{planSum: strings.Repeat("ab", 32), keepDir: t.TempDir()})}} {
		t.Run(tc.name, func(t *testing.T) {
			var calls []string
			opts := &stage.PlanOptions{Env: stage.Env{Root: root}, NewRunner: func(dir string, opts terraform.RunnerOptions) (terraform.Runner, error) {
				return &fakeRunner{dir: opts.Name, show: fakePlanJSON, calls: &calls}, nil
			}}
			if err := opts.Defaults(); err != nil {
				t.Fatal(err)
			}
			got := map[string]report.Project{}
			for _, p := range projects {
				r := &stage.ProjectRun{Opts: opts, Project: p, Dir: t.TempDir(), Phase: func(string) {}, Detail: func(string) {}, PlanFile: filepath.Join(t.TempDir(), "plan")}
				got[p.Name] = stage.RunStages(t.Context(), r, tc.stages)
			}
			app := got["app"]
			if app.Status != report.StatusFailed || !strings.Contains(app.Error, "app/.terraform is committed (app/.terraform/terraform.tfstate)") ||
				!strings.Contains(app.Error, "git rm -r --cached app/.terraform") {
				t.Errorf("app: %s %q", app.Status, app.Error)
			}
			if db := got["db"]; db.Status != report.StatusPlanned {
				t.Errorf("db (untracked .terraform): %s %q", db.Status, db.Error)
			}
			if web := got["web"]; web.Status != report.StatusPlanned {
				t.Errorf("web (.terraform tracked, not on disk): %s %q", web.Status, web.Error)
			}
			if slices.Contains(calls, "init app") {
				t.Errorf("terraform ran for app: %q", calls)
			}
		})
	}
}

// TestPlanIgnoresTheProjectsDataDir proves the data directory alone defeats all three
// routes, without the refusal (a plain directory: no git index to refuse from). A project
// on the local backend, applied, whose .terraform then holds terraform's own backend cache
// with the path edited (the hash still matching), a module record pointing at other code
// and another workspace selected. Terraform run in that directory would plan a create in
// another state, of the other code, in the other workspace; tfgate's plan is an update of
// the real state, of the reviewed module, and nothing in .terraform changes.
func TestPlanIgnoresTheProjectsDataDir(t *testing.T) {
	bin := testBinary(t)
	backend := "terraform {\n  backend \"local\" {\n    path = \"real.tfstate\"\n  }\n}\n"
	root := testenv.WriteTree(t, map[string]string{
		"app/main.tf":       backend + "module \"m\" {\n  source = \"./mod\"\n  input  = \"v1\"\n}\n",
		"app/mod/main.tf":   "variable \"input\" {}\n\nresource \"terraform_data\" \"reviewed\" {\n  input = var.input\n}\n",
		"app/.evil/main.tf": "variable \"input\" {}\n\nresource \"terraform_data\" \"evil\" {}\n",
	})
	dir := filepath.Join(root, "app")
	runTF := func(args ...string) {
		t.Helper()
		cmd := exec.Command(bin.Path, args...)
		cmd.Dir = dir
		for k, v := range testenv.RunEnv() {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("terraform %v: %v\n%s", args, err, out)
		}
	}
	runTF("init", "-input=false", "-no-color")
	runTF("apply", "-auto-approve", "-input=false", "-no-color")
	real, err := os.ReadFile(filepath.Join(dir, "real.tfstate"))
	if err != nil {
		t.Fatal(err)
	}

	cachePath := filepath.Join(dir, ".terraform", "terraform.tfstate")
	var cache map[string]any
	data, err := os.ReadFile(cachePath)
	if err != nil || json.Unmarshal(data, &cache) != nil {
		t.Fatalf("terraform's backend cache: %v %s", err, data)
	}
	cache["backend"].(map[string]any)["config"].(map[string]any)["path"] = "stolen.tfstate"
	data, _ = json.Marshal(cache)
	committed := map[string]string{
		".terraform/terraform.tfstate":    string(data),
		".terraform/modules/modules.json": `{"Modules":[{"Key":"","Source":"","Dir":"."},{"Key":"m","Source":"./mod","Dir":".evil"}]}`,
		".terraform/environment":          "evil",
		"terraform.tfstate.d/evil/.keep":  "", // the workspace exists
	}
	for name, content := range committed {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(backend+"module \"m\" {\n  source = \"./mod\"\n  input  = \"v2\"\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	p := project.Project{Name: "app", Dir: "app", Workspace: "default", WhenModified: project.DefaultWhenModified,
		Modules: []string{"app/mod"}, Nested: []string{"app/mod"}} // as discovery finds them
	run, err := stage.Plan(t.Context(), stage.PlanOptions{Env: stage.Env{Root: root, TerraformEnv: testenv.RunEnv()}, Projects: []project.Project{p}, Binary: bin})
	if err != nil {
		t.Fatal(err)
	}
	res := run.Projects[0]
	if res.Status != report.StatusPlanned || res.Changes == nil {
		t.Fatalf("app: %s %s", res.Status, res.Error)
	}
	s := res.Changes.Summary
	if s.Add != 0 || s.Change != 1 || s.Destroy != 0 {
		t.Errorf("summary %+v: want one update of the real state", s)
	}
	for _, rc := range res.Changes.Resources {
		if rc.Address != "module.m.terraform_data.reviewed" {
			t.Errorf("planned %s: want only the reviewed module's resource", rc.Address)
		}
	}
	for name, content := range committed {
		if got, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(got) != content {
			t.Errorf("%s changed: %v %q", name, err, got)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "real.tfstate")); string(got) != string(real) {
		t.Error("plan wrote the real state")
	}
	if _, err := os.Stat(filepath.Join(dir, "stolen.tfstate")); !os.IsNotExist(err) {
		t.Errorf("stolen.tfstate: %v", err)
	}
}
