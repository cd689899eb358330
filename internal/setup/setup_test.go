package setup

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/tfgate/tfgate/examples/workflows"
	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/golden"
	"github.com/tfgate/tfgate/internal/testenv"
)

var opts = Options{DefaultBranch: "trunk", Projects: []Project{
	{Name: "app", Dir: "app", Workspace: "default"},
	{Name: "network-prod", Dir: "envs/prod/network", Workspace: "prod"},
}}

func render(t *testing.T) map[string][]byte {
	t.Helper()
	files, err := Files(opts)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, f := range files {
		out[f.Path] = f.Content
	}
	return out
}

// The workflows are the examples, with the default branch and the projects filled in.
func TestWorkflowsFromExamples(t *testing.T) {
	got := render(t)
	for _, name := range Workflows {
		w := got[WorkflowDir+"/"+name]
		ex, err := fs.ReadFile(workflows.FS, name)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(w, []byte("Copy to .github/workflows")) {
			t.Errorf("%s keeps the example's copy instructions", name)
		}
		// Apart from the header and the copy sentence, the example as it is.
		if !bytes.Contains(w, ex[bytes.Index(ex, []byte("\nname: ")):][:200]) && name != "apply.yml" {
			t.Errorf("%s is not the example's body", name)
		}
		var doc struct {
			On map[string]any `yaml:"on"`
		}
		if err := yaml.Unmarshal(w, &doc); err != nil || doc.On == nil {
			t.Errorf("%s: %v (on: %v)", name, err, doc.On)
		}
	}
	apply := string(got[WorkflowDir+"/apply.yml"])
	if !strings.Contains(apply, "    branches: [trunk]\n") || strings.Contains(apply, "[main]") {
		t.Errorf("apply.yml does not run on pushes to trunk:\n%s", apply)
	}
	plan := string(got[WorkflowDir+"/plan.yml"])
	for _, want := range []string{"#   app\n", "#   network-prod (envs/prod/network), workspace prod\n"} {
		if !strings.Contains(plan, want) {
			t.Errorf("plan.yml does not list %q", want)
		}
	}
}

func TestYAMLScalar(t *testing.T) {
	for in, want := range map[string]string{"main": "main", "release/v1": "release/v1", "on": `"on"`, "1.0": `"1.0"`,
		"a b": `"a b"`, "#x": `"#x"`, "x: y": `"x: y"`} {
		if got := yamlScalar(in); got != want {
			t.Errorf("yamlScalar(%q) = %s, want %s", in, got, want)
		}
		var back string
		if err := yaml.Unmarshal([]byte("v: "+yamlScalar(in)), &struct{ V *string }{&back}); err != nil || back != in {
			t.Errorf("%q reads back as %q, %v", in, back, err)
		}
	}
}

// The config is valid as written, and with every commented setting uncommented.
func TestConfigParses(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"app", "envs/prod/network", "policies"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
		if d != "policies" {
			if err := os.WriteFile(filepath.Join(root, d, "main.tf"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	data := render(t)[config.FileName]
	cfg, err := config.Parse(data, config.FileName, root)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if len(cfg.Projects) != 0 || cfg.Version != 1 {
		t.Errorf("as written: %d projects (want autodetection), version %d", len(cfg.Projects), cfg.Version)
	}
	setting := regexp.MustCompile(`(?m)^# (\s*[a-z_]+:|\s+- )`)
	all := setting.ReplaceAll(data, []byte("$1"))
	cfg, err = config.Parse(all, config.FileName, root)
	if err != nil {
		t.Fatalf("uncommented: %v\n%s", err, all)
	}
	if len(cfg.Projects) != 2 || cfg.Projects[1].Dir != "envs/prod/network" || cfg.Projects[1].Workspace != "prod" ||
		cfg.Approval.DestroyMinApprovals != 2 || cfg.Terraform.Version != "~> 1.5" {
		t.Errorf("uncommented: %+v", cfg)
	}
}

// actionlint, as `make lint-workflows` runs it, passes the written workflows.
func TestWorkflowsPassActionlint(t *testing.T) {
	lint := testenv.Actionlint(t)
	root := t.TempDir()
	files, err := Files(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(root, files, false); err != nil {
		t.Fatal(err)
	}
	args := []string{"-shellcheck=", "-pyflakes="}
	for _, name := range Workflows {
		args = append(args, filepath.Join(root, WorkflowDir, name))
	}
	if out, err := exec.Command(lint, args...).CombinedOutput(); err != nil {
		t.Errorf("actionlint: %v\n%s", err, out)
	}
}

// Without force nothing is overwritten, and nothing at all is written when one file exists.
func TestWriteAllOrNothing(t *testing.T) {
	root := t.TempDir()
	files, err := Files(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, config.FileName), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	err = Write(root, files, false)
	var ee *ExistsError
	if !errors.As(err, &ee) || len(ee.Files) != 1 || ee.Files[0] != config.FileName {
		t.Fatalf("Write = %v, want an ExistsError naming %s", err, config.FileName)
	}
	if !strings.Contains(err.Error(), "--force") {
		t.Errorf("the refusal does not say how to overwrite: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, ".github")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a refused init wrote .github: %v", err)
	}
	if err := Write(root, files, true); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(root, config.FileName)); bytes.Equal(got, []byte("mine")) {
		t.Error("--force did not overwrite")
	}
	err = Write(root, files, false)
	if !errors.As(err, &ee) || len(ee.Files) != len(files) {
		t.Errorf("second Write = %v, want every file named", err)
	}
}

func TestPathsAreFiles(t *testing.T) {
	files, err := Files(opts)
	if err != nil {
		t.Fatal(err)
	}
	paths := Paths()
	if len(paths) != len(files) {
		t.Fatalf("Paths %v, Files %d", paths, len(files))
	}
	for i, f := range files {
		if f.Path != paths[i] {
			t.Errorf("Paths[%d] = %s, Files has %s", i, paths[i], f.Path)
		}
	}
}

// What init writes and prints, for reviewers: the config, each workflow's header (the rest
// is the example as it is), and the summary.
func TestGolden(t *testing.T) {
	files, err := Files(opts)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	for _, f := range files {
		content := f.Content
		if f.Path != config.FileName {
			end := bytes.Index(content, []byte("\n# tfgate ")) // the example's own first line
			content = content[:end+1]
		}
		fmt.Fprintf(&b, "=== %s\n%s", f.Path, content)
	}
	golden.Check(t, golden.Path(t.Name()+"Files"), b.Bytes())
	b.Reset()
	for _, a := range []Action{{Ref: "v1.4.2"}, {Ref: strings.Repeat("ab", 20), Comment: "v1.4.2"}, {Ref: ExampleRef, Dev: true}} {
		if err := WriteSummary(&b, files, opts.Projects, opts.DefaultBranch, a); err != nil {
			t.Fatal(err)
		}
	}
	golden.Check(t, golden.Path(t.Name()+"Summary"), b.Bytes())
}
