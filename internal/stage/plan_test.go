package stage

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tfgate/tfgate/internal/bundle"
	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/project"
	"github.com/tfgate/tfgate/internal/report"
	"github.com/tfgate/tfgate/internal/terraform"
	"github.com/tfgate/tfgate/internal/testenv"
)

const twoResources = `
resource "terraform_data" "a" { input = "a" }
resource "terraform_data" "b" { input = { size = 1 } }
`

func TestPlanIsolatesFailuresAndKeepsOrder(t *testing.T) {
	root := testenv.WriteTree(t, map[string]string{
		"c/main.tf": twoResources,
		"a/main.tf": `resource "terraform_data" "x" {`, // broken HCL
		"b/main.tf": `resource "terraform_data" "y" { input = 1 }`,
	})
	ctx := context.Background()
	projects, err := project.Discover(ctx, root, config.Default())
	if err != nil {
		t.Fatal(err)
	}
	rec := &recordingProgress{}
	rep, err := Plan(ctx, PlanOptions{Env: Env{Root: root, TerraformEnv: testenv.RunEnv(), Parallel: 2, Progress: rec}, Projects: projects, Binary: testBinary(t)})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range rep.Projects {
		got = append(got, p.Name+":"+string(p.Status))
	}
	if want := "a:failed b:planned c:planned"; strings.Join(got, " ") != want {
		t.Fatalf("projects = %v, want %s", got, want)
	}
	if !strings.Contains(rep.Projects[0].Error, "main.tf") {
		t.Errorf("failure should name the file, got %q", rep.Projects[0].Error)
	}
	if rep.Projects[2].Changes.Summary.Add != 2 {
		t.Errorf("c: add = %d, want 2", rep.Projects[2].Changes.Summary.Add)
	}
	if failed := rep.Unfinished(); len(failed) != 1 || failed[0].Name != "a" {
		t.Errorf("Unfinished = %v", failed)
	}
	if rec.done["a"] != false || rec.done["c"] != true || len(rec.done) != 3 {
		t.Errorf("progress done events = %v", rec.done)
	}
}

func TestPlanWritesBundlesWithInputsHashedBeforeInit(t *testing.T) {
	root := testenv.WriteTree(t, map[string]string{
		"app/main.tf":     `module "m" { source = "../modules/m" }`,
		"modules/m/m.tf":  twoResources,
		"other/main.tf":   `resource "terraform_data" "o" {}`,
		"app/dev.tfvars":  ``,
		"app/notes/x.txt": "not an input of the root module? it is: non-hidden files of the dir",
	})
	ctx := context.Background()
	projects, err := project.Discover(ctx, root, config.Default())
	if err != nil {
		t.Fatal(err)
	}
	app, err := project.Select(projects, []string{"app"})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "bundles")
	now := time.Date(2026, 11, 29, 3, 0, 0, 0, time.UTC)
	bin := testBinary(t)
	rep, err := Plan(ctx, PlanOptions{Env: Env{Root: root, TerraformEnv: testenv.RunEnv(), TfgateVersion: "test", Now: func() time.Time { return now }},
		Projects: app, Binary: bin, OutDir: out, Commit: "0123456789abcdef0123456789abcdef01234567"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Projects[0].Status != report.StatusPlanned {
		t.Fatalf("app: %s %s", rep.Projects[0].Status, rep.Projects[0].Error)
	}
	m, err := bundle.Read(ctx, filepath.Join(out, "app"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Commit != "0123456789abcdef0123456789abcdef01234567" || m.TerraformVersion != bin.Version.String() || m.TerraformFlavor != bin.Flavor || !m.HasChanges || m.Summary.Add != 2 || !m.Applicable {
		t.Errorf("manifest = %+v", m)
	}
	if _, ok := m.Inputs["modules/m/m.tf"]; !ok {
		t.Errorf("module file missing from inputs: %v", m.Inputs)
	}
	if _, ok := m.Inputs["other/main.tf"]; ok {
		t.Errorf("another project's file in inputs: %v", m.Inputs)
	}
	for p := range m.Inputs {
		if strings.Contains(p, ".terraform") {
			t.Errorf("terraform's working files must not be inputs: %s", p)
		}
	}
	// The recorded hash is that of the files as committed, so a fresh checkout matches.
	files, _ := project.InputFiles(ctx, root, app[0])
	_, fresh, _ := bundle.HashInputs(ctx, root, files)
	if fresh != m.InputHash {
		t.Errorf("input hash after the run differs from the recorded one: init changed an input?")
	}
	data, _ := os.ReadFile(filepath.Join(out, "app", bundle.PlanFile))
	if len(data) == 0 {
		t.Error("plan file is empty")
	}
}

func TestPlanCancelled(t *testing.T) {
	root := testenv.WriteTree(t, map[string]string{"a/main.tf": twoResources})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	projects, _ := project.Discover(context.Background(), root, config.Default())
	// No terraform is needed: a cancelled run starts none (the factory says so if it does).
	started := func(string, terraform.RunnerOptions) (terraform.Runner, error) {
		t.Error("a cancelled run started terraform")
		return nil, errors.New("cancelled")
	}
	run, err := Plan(ctx, PlanOptions{Env: Env{Root: root, TerraformEnv: testenv.RunEnv()}, Projects: projects, NewRunner: started})
	if err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("a cancelled run must say it was interrupted, got %v", err)
	}
	if len(run.Projects) != 1 || run.Projects[0].Status != report.StatusNotStarted || run.Projects[0].Name != "a" {
		t.Fatalf("a project that never started must be reported as not started: %+v", run.Projects)
	}
}

type recordingProgress struct {
	mu   sync.Mutex
	done map[string]bool
}

func (r *recordingProgress) Start(string, string)  {}
func (r *recordingProgress) Phase(string, string)  {}
func (r *recordingProgress) Detail(string, string) {}
func (r *recordingProgress) Finished(p report.Project) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done == nil {
		r.done = map[string]bool{}
	}
	r.done[p.Name] = p.Status.Succeeded()
}

func TestBundleDirsNeverCollide(t *testing.T) {
	ps := []project.Project{{Name: "a/b", Workspace: "default"}, {Name: "a_b", Workspace: "default"}, {Name: "c", Workspace: "default"}, {Name: "c", Workspace: "staging"}}
	dirs := BundleDirs(ps)
	seen := map[string]bool{}
	for _, d := range dirs {
		if seen[d] {
			t.Fatalf("bundle dirs collide: %v", dirs)
		}
		seen[d] = true
	}
	if dirs[2] != "c" || dirs[3] != "c@staging" {
		t.Errorf("names without a collision must stay readable: %v", dirs)
	}
}

func TestOutsideDropsFilesUnderOutDir(t *testing.T) {
	files := []string{"main.tf", "bundles/a/manifest.json", "bundlesx/keep.tf", "mod/x.tf"}
	got := Outside(files, "/repo", "/repo/bundles")
	if strings.Join(got, ",") != "main.tf,bundlesx/keep.tf,mod/x.tf" {
		t.Fatalf("outside = %v", got)
	}
	if got := Outside(files, "/repo", "/elsewhere/out"); len(got) != len(files) {
		t.Fatalf("an --out outside the repository must not drop inputs: %v", got)
	}
}
