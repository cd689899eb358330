package testprovider_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"

	"github.com/tfgate/tfgate/internal/testenv"
	"github.com/tfgate/tfgate/internal/testprovider"
)

// binaries are the pinned terraform and the fakecloud mirror that the Makefile builds and
// exports (TFGATE_TEST_TERRAFORM, TFGATE_TEST_PLUGINS); .bin/ when run without make.
func binaries(t *testing.T) (terraform, plugins string) {
	t.Helper()
	return testenv.Terraform(t), testenv.Plugins(t)
}

// project is a terraform working directory using fakecloud with its objects in dir/objects.
type project struct {
	t         *testing.T
	dir       string
	terraform string
	env       []string
}

const header = `terraform {
  required_providers {
    fakecloud = { source = "tfgate/fakecloud" }
  }
}

provider "fakecloud" {
  dir = "objects"
}
`

// newProject writes main.tf (header + resources) and a CLI config of the test's own, and
// runs terraform init, offline.
func newProject(t *testing.T, resources string) *project {
	t.Helper()
	return initProject(t, header+resources)
}

// initProject is newProject for a complete main.tf.
func initProject(t *testing.T, mainTF string) *project {
	t.Helper()
	terraform, plugins := binaries(t)
	dir := t.TempDir()
	home := t.TempDir()
	cliConfig := filepath.Join(home, "cli.tfrc")
	if err := os.WriteFile(cliConfig, []byte(testprovider.CLIConfig(plugins)), 0o644); err != nil {
		t.Fatal(err)
	}
	p := &project{t: t, dir: dir, terraform: terraform, env: []string{
		"PATH=/usr/bin:/bin",
		"HOME=" + home,
		"TF_CLI_CONFIG_FILE=" + cliConfig,
		"TF_IN_AUTOMATION=1",
		"TF_INPUT=0",
	}}
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(mainTF), 0o644); err != nil {
		t.Fatal(err)
	}
	p.must("init", "-input=false", "-no-color")
	return p
}

func (p *project) writeConfig(resources string) {
	p.t.Helper()
	if err := os.WriteFile(filepath.Join(p.dir, "main.tf"), []byte(header+resources), 0o644); err != nil {
		p.t.Fatal(err)
	}
}

func (p *project) command(args ...string) *exec.Cmd {
	cmd := exec.Command(p.terraform, args...)
	cmd.Dir = p.dir
	cmd.Env = p.env
	return cmd
}

// run runs terraform and returns stdout, stderr and the error (an *exec.ExitError on a
// non-zero exit).
func (p *project) run(args ...string) (string, string, error) {
	p.t.Helper()
	cmd := p.command(args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

func (p *project) must(args ...string) string {
	p.t.Helper()
	stdout, stderr, err := p.run(args...)
	if err != nil {
		p.t.Fatalf("terraform %s: %v\n%s%s", strings.Join(args, " "), err, stdout, stderr)
	}
	return stdout
}

func (p *project) apply() {
	p.t.Helper()
	p.must("apply", "-auto-approve", "-input=false", "-no-color")
}

// plan saves a plan with the given flags and returns `terraform show -json` of it.
func (p *project) plan(flags ...string) *tfjson.Plan {
	p.t.Helper()
	args := append([]string{"plan", "-input=false", "-no-color", "-out=test.tfplan"}, flags...)
	p.must(args...)
	var plan tfjson.Plan
	if err := json.Unmarshal([]byte(p.must("show", "-json", "test.tfplan")), &plan); err != nil {
		p.t.Fatal(err)
	}
	return &plan
}

// state is `terraform show -json` of the current state.
func (p *project) state() *tfjson.State {
	p.t.Helper()
	var state tfjson.State
	if err := json.Unmarshal([]byte(p.must("show", "-json")), &state); err != nil {
		p.t.Fatal(err)
	}
	return &state
}

func (p *project) objectPath(name string) string {
	return filepath.Join(p.dir, "objects", name+".json")
}

// object reads an object's file as generic JSON.
func (p *project) object(name string) map[string]any {
	p.t.Helper()
	data, err := os.ReadFile(p.objectPath(name))
	if err != nil {
		p.t.Fatal(err)
	}
	var obj map[string]any
	if err := json.Unmarshal(data, &obj); err != nil {
		p.t.Fatal(err)
	}
	return obj
}

// editObject changes an object's file out of band, as a console click would.
func (p *project) editObject(name string, edit func(obj map[string]any)) {
	p.t.Helper()
	obj := p.object(name)
	edit(obj)
	data, err := json.Marshal(obj)
	if err != nil {
		p.t.Fatal(err)
	}
	if err := os.WriteFile(p.objectPath(name), data, 0o644); err != nil {
		p.t.Fatal(err)
	}
}

// changed lists the top-level attributes whose values differ between before and after.
func changed(c *tfjson.Change) []string {
	before, _ := c.Before.(map[string]any)
	after, _ := c.After.(map[string]any)
	var names []string
	for k := range union(before, after) {
		if !jsonEqual(before[k], after[k]) {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	return names
}

func union(a, b map[string]any) map[string]bool {
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	return keys
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}
