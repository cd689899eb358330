package terraform

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// RunnerOptions.DataDir is terraform's data directory for every command, whatever Env's
// TF_DATA_DIR says: init installs the modules there, the workspace is selected there, and
// the project's own .terraform is neither read nor written.
func TestRunnerDataDir(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{
		"main.tf":                         "module \"m\" {\n  source = \"./mod\"\n}\n",
		"mod/main.tf":                     `resource "terraform_data" "m" {}`,
		".terraform/environment":          "evil",
		".terraform/modules/modules.json": `{"Modules":[{"Key":"","Source":"","Dir":"."},{"Key":"m","Source":"./mod","Dir":"elsewhere"}]}`,
	})
	data := t.TempDir()
	env := testEnv(t)
	env["TF_DATA_DIR"] = ".terraform"
	r, err := NewRunner(dir, realTerraform(t), RunnerOptions{Env: env, Name: "app", DataDir: data})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Init(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := r.SelectWorkspace(t.Context(), "staging"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Plan(t.Context(), PlanOptions{Out: filepath.Join(t.TempDir(), "plan")}); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(data, "modules", "modules.json")); err != nil || !strings.Contains(string(b), `"Dir":"mod"`) {
		t.Errorf("modules.json in the data directory: %v %s", err, b)
	}
	if b, err := os.ReadFile(filepath.Join(data, "environment")); err != nil || string(b) != "staging" {
		t.Errorf("environment in the data directory: %v %q", err, b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, ".terraform", "environment")); string(b) != "evil" {
		t.Errorf("the project's .terraform/environment was rewritten: %q", b)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, ".terraform"))
	if len(entries) != 2 {
		t.Errorf("the project's .terraform holds %d entries, want its 2 untouched", len(entries))
	}
}

func TestRunnerDataDirRefused(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "missing")
	for dir, want := range map[string]string{
		".terraform": "data directory .terraform: not an absolute path",
		missing:      "data directory (TF_DATA_DIR) " + missing + ": stat " + missing + ": no such file or directory",
		file:         "data directory (TF_DATA_DIR) " + file + ": not a directory",
	} {
		_, err := NewRunner(t.TempDir(), Binary{Path: "/bin/true", Flavor: FlavorTerraform}, RunnerOptions{Name: "app", DataDir: dir})
		if err == nil || err.Error() != "terraform in app: "+want {
			t.Errorf("DataDir %s: got %v, want %q", dir, err, want)
		}
	}
}
