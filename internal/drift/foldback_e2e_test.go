package drift

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"

	"github.com/tfgate/tfgate/internal/plan"
	"github.com/tfgate/tfgate/internal/project"
	"github.com/tfgate/tfgate/internal/testenv"
	"github.com/tfgate/tfgate/internal/testprovider"
)

const e2eMain = `terraform {
  required_providers {
    fakecloud = { source = "tfgate/fakecloud" }
  }
}

provider "fakecloud" {
  dir = "objects"
}

resource "fakecloud_object" "app" {
  name    = "app"
  content = "v1"
  tags = {
    env = "prod"
  }
  secret = "hunter2"
}

resource "fakecloud_object" "other" {
  name    = "other"
  content = "keep"
}
`

// TestFoldBackEndToEnd is issue 11's fold-back test with real terraform and fakecloud:
// after out-of-band edits of literal attributes, the suggested patch applies with git
// apply, and a normal plan afterwards proposes no change to that resource (the secret,
// which is never written into the patch, is the only thing left to do by hand).
func TestFoldBackEndToEnd(t *testing.T) {
	t.Parallel()
	tf := newTerraform(t)
	repo := t.TempDir()
	dir := filepath.Join(repo, "envs", "prod")
	write(t, repo, "envs/prod/main.tf", e2eMain)
	run(t, repo, "git", "init", "-q")
	run(t, repo, "git", "add", ".")
	run(t, repo, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "baseline")
	tf.must(dir, "init", "-input=false", "-no-color")
	tf.must(dir, "apply", "-auto-approve", "-input=false", "-no-color")

	// The console edits: content, a tag changed and one added, the secret rotated.
	objPath := filepath.Join(dir, "objects", "app.json")
	var obj map[string]any
	data, err := os.ReadFile(objPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &obj); err != nil {
		t.Fatal(err)
	}
	obj["content"] = "v2 ${not a template}"
	obj["tags"] = map[string]any{"env": "staging", "owner": "ops"}
	obj["secret"] = "rotated"
	if data, err = json.Marshal(obj); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(objPath, data, 0o644); err != nil {
		t.Fatal(err)
	}

	changes := tf.plan(dir)
	if len(changes.Drift) != 1 || changes.Drift[0].Address != "fakecloud_object.app" {
		t.Fatalf("drift = %+v, want fakecloud_object.app", changes.Drift)
	}
	got := Suggest(repo, project.Project{Dir: "envs/prod"}, changes.Drift)
	var lines []string
	for _, s := range got {
		lines = append(lines, s.String())
	}
	want := []string{
		`envs/prod/main.tf:13  content = "v1" → "v2 $${not a template}"`,
		`fakecloud_object.app.secret: sensitive: edit it by hand`,
		`envs/prod/main.tf:14  tags = {⏎    env = "prod"⏎  } → {⏎    env   = "staging"⏎    owner = "ops"⏎  }`,
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("suggestions:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	diff, err := Patch(repo, got)
	if err != nil {
		t.Fatal(err)
	}
	// The rotated secret is nowhere; the old one may show as context (it is in Git).
	if strings.Contains(diff, "rotated") || strings.Contains(diff, "-  secret") || strings.Contains(diff, "+  secret") {
		t.Errorf("the patch holds the secret:\n%s", diff)
	}
	gitApply(t, repo, diff)

	// The code now says what the infrastructure is, but for the secret: the only change
	// left on app is the secret, and other is untouched.
	after := tf.plan(dir)
	for _, r := range after.Resources {
		switch {
		case r.Address != "fakecloud_object.app":
			t.Errorf("after the patch, %s: %s", r.Address, r.Action)
		case len(r.Attributes) != 1 || r.Attributes[0].Path != "secret":
			t.Errorf("after the patch, app changes %+v; want only its secret", r.Attributes)
		}
	}

	// With the secret edited by hand too, a normal plan proposes no change at all.
	main, err := os.ReadFile(filepath.Join(dir, "main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, repo, "envs/prod/main.tf", strings.Replace(string(main), `"hunter2"`, `"rotated"`, 1))
	if final := tf.plan(dir); len(final.Resources) != 0 {
		t.Errorf("after the patch and the secret by hand, the plan changes %+v", final.Resources)
	}
}

// terraform runs the pinned terraform with fakecloud installed from the test mirror.
type terraform struct {
	t   *testing.T
	bin string
	env []string
}

func newTerraform(t *testing.T) *terraform {
	t.Helper()
	bin, plugins := testenv.Terraform(t), testenv.Plugins(t)
	if _, err := os.Stat(filepath.Join(plugins, testprovider.Address)); err != nil {
		testenv.Missing(t, fmt.Errorf("fakecloud mirror: %v (run `make fakecloud`)", err))
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed: the patch is proven with git apply")
	}
	home := t.TempDir()
	cli := filepath.Join(home, "cli.tfrc")
	if err := os.WriteFile(cli, []byte(testprovider.CLIConfig(plugins)), 0o644); err != nil {
		t.Fatal(err)
	}
	return &terraform{t: t, bin: bin, env: []string{
		"PATH=/usr/bin:/bin", "HOME=" + home, "TF_CLI_CONFIG_FILE=" + cli,
		"TF_IN_AUTOMATION=1", "TF_INPUT=0",
	}}
}

func (tf *terraform) must(dir string, args ...string) []byte {
	tf.t.Helper()
	cmd := exec.Command(tf.bin, args...)
	cmd.Dir, cmd.Env = dir, tf.env
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		tf.t.Fatalf("terraform %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr)
	}
	return out
}

// plan makes a normal plan and summarises its `show -json` as tfgate does.
func (tf *terraform) plan(dir string) *plan.Changes {
	tf.t.Helper()
	tf.must(dir, "plan", "-input=false", "-no-color", "-out=fold.tfplan")
	doc := tf.must(dir, "show", "-json", "fold.tfplan")
	var check tfjson.Plan
	if err := json.Unmarshal(doc, &check); err != nil {
		tf.t.Fatal(err)
	}
	changes, err := plan.Read(doc, plan.Options{})
	if err != nil {
		tf.t.Fatal(err)
	}
	return changes
}
