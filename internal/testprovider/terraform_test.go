package testprovider_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	tfjson "github.com/hashicorp/terraform-json"

	"github.com/tfgate/tfgate/internal/testprovider"
)

// These tests run the real terraform 1.5.7 against the built provider binary.

func TestApplyWritesTheObject(t *testing.T) {
	t.Parallel()
	p := newProject(t, `
resource "fakecloud_object" "web" {
  name    = "web"
  content = "v1"
  tags    = { env = "prod" }
  secret  = "hunter2"
}
`)
	p.apply()
	want := map[string]any{"name": "web", "content": "v1", "tags": map[string]any{"env": "prod"}, "secret": "hunter2"}
	if got := p.object("web"); !reflect.DeepEqual(got, want) {
		t.Errorf("web.json = %v, want %v", got, want)
	}
	res := p.state().Values.RootModule.Resources
	if len(res) != 1 || res[0].AttributeValues["id"] != "web" {
		t.Fatalf("state resources = %+v, want one with id web", res)
	}
	// In sync: a plan proposes nothing.
	if plan := p.plan(); len(plan.ResourceDrift) != 0 || actions(plan) != "" {
		t.Errorf("plan after apply: drift %v, changes %q; want none", plan.ResourceDrift, actions(plan))
	}
	// Changing the name replaces the object: the old file goes, the new one comes.
	p.writeConfig(`
resource "fakecloud_object" "web" {
  name    = "web2"
  content = "v1"
}
`)
	if got := actions(p.plan()); got != "fakecloud_object.web:delete,create" {
		t.Errorf("plan after renaming = %q, want a replacement", got)
	}
	p.apply()
	if _, err := os.Stat(p.objectPath("web")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("web.json after replacement: %v, want it gone", err)
	}
	if got := p.object("web2")["content"]; got != "v1" {
		t.Errorf("web2.json content = %v", got)
	}
	p.must("destroy", "-auto-approve", "-input=false", "-no-color")
	if _, err := os.Stat(p.objectPath("web2")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("web2.json after destroy: %v, want it gone", err)
	}
}

func TestRefreshOnlyShowsOutOfBandChanges(t *testing.T) {
	t.Parallel()
	p := newProject(t, `
resource "fakecloud_object" "edited" {
  name    = "edited"
  content = "v1"
}

resource "fakecloud_object" "deleted" {
  name    = "deleted"
  content = "v1"
}
`)
	p.apply()
	p.editObject("edited", func(o map[string]any) { o["content"] = "changed in the console" })
	if err := os.Remove(p.objectPath("deleted")); err != nil {
		t.Fatal(err)
	}

	plan := p.plan("-refresh-only")
	got := drift(plan)
	want := map[string]string{
		"fakecloud_object.edited":  "update content",
		"fakecloud_object.deleted": "delete",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("refresh-only drift = %v, want %v", got, want)
	}
	for _, rc := range plan.ResourceDrift {
		if rc.Address == "fakecloud_object.edited" {
			if after := rc.Change.After.(map[string]any)["content"]; after != "changed in the console" {
				t.Errorf("drift after.content = %v", after)
			}
		}
	}
	// Applying the refresh-only plan accepts the drift into state: the deleted object is
	// gone from it, the edited one holds the new content, and no file changes.
	p.must("apply", "-input=false", "-no-color", "test.tfplan")
	values := map[string]any{}
	for _, r := range p.state().Values.RootModule.Resources {
		values[r.Address] = r.AttributeValues["content"]
	}
	if want := map[string]any{"fakecloud_object.edited": "changed in the console"}; !reflect.DeepEqual(values, want) {
		t.Errorf("state after accepting the drift = %v, want %v", values, want)
	}
	// A normal plan now puts the code back: update one, create the other.
	if got := actions(p.plan()); got != "fakecloud_object.deleted:create fakecloud_object.edited:update" {
		t.Errorf("plan = %q", got)
	}
}

func TestSecretIsSensitive(t *testing.T) {
	t.Parallel()
	p := newProject(t, `
resource "fakecloud_object" "db" {
  name   = "db"
  secret = "hunter2"
}
`)
	plan := p.plan()
	if len(plan.ResourceChanges) != 1 {
		t.Fatalf("resource changes = %d, want 1", len(plan.ResourceChanges))
	}
	sens, _ := plan.ResourceChanges[0].Change.AfterSensitive.(map[string]any)
	if sens["secret"] != true {
		t.Errorf("after_sensitive = %v, want secret: true", plan.ResourceChanges[0].Change.AfterSensitive)
	}
	if human := p.must("show", "-no-color", "test.tfplan"); strings.Contains(human, "hunter2") {
		t.Errorf("terraform show prints the secret:\n%s", human)
	}
	p.apply()
	// A secret changed out of band is drift, still marked sensitive on both sides.
	p.editObject("db", func(o map[string]any) { o["secret"] = "rotated" })
	plan = p.plan("-refresh-only")
	if got := drift(plan); !reflect.DeepEqual(got, map[string]string{"fakecloud_object.db": "update secret"}) {
		t.Fatalf("drift = %v", got)
	}
	c := plan.ResourceDrift[0].Change
	for side, s := range map[string]any{"before_sensitive": c.BeforeSensitive, "after_sensitive": c.AfterSensitive} {
		if m, _ := s.(map[string]any); m["secret"] != true {
			t.Errorf("drift %s = %v, want secret: true", side, s)
		}
	}
}

func TestImportByName(t *testing.T) {
	t.Parallel()
	p := newProject(t, `
resource "fakecloud_object" "legacy" {
  name    = "legacy"
  content = "made by hand"
}
`)
	if err := os.MkdirAll(filepath.Dir(p.objectPath("legacy")), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p.objectPath("legacy"), []byte(`{"name":"legacy","content":"made by hand","tags":null,"secret":null}`), 0o644); err != nil {
		t.Fatal(err)
	}
	// Creating over an existing file is refused, as a cloud refuses a duplicate name.
	if _, stderr, err := p.run("apply", "-auto-approve", "-input=false", "-no-color"); err == nil || !strings.Contains(stderr, "exists already: import it") {
		t.Fatalf("apply over an existing object: err=%v\n%s", err, stderr)
	}
	p.must("import", "-input=false", "-no-color", "fakecloud_object.legacy", "legacy")
	if plan := p.plan(); actions(plan) != "" {
		t.Errorf("plan after import = %q, want no changes", actions(plan))
	}
	// A name without a file cannot be imported.
	p.writeConfig(`
resource "fakecloud_object" "ghost" {
  name = "ghost"
}
`)
	if _, stderr, err := p.run("import", "-input=false", "-no-color", "fakecloud_object.ghost", "ghost"); err == nil || !strings.Contains(stderr, "non-existent") {
		t.Errorf("import of a missing object: err=%v\n%s", err, stderr)
	}
}

func TestFailOnApply(t *testing.T) {
	t.Parallel()
	p := newProject(t, `
resource "fakecloud_object" "ok" {
  name = "ok"
}

resource "fakecloud_object" "broken" {
  name          = "broken"
  fail_on_apply = true
}
`)
	_, stderr, err := p.run("apply", "-auto-approve", "-input=false", "-no-color")
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("apply: err=%v, want exit 1\n%s", err, stderr)
	}
	for _, want := range []string{`create fakecloud_object "broken" failed`, "fail_on_apply is true", "with fakecloud_object.broken"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if _, err := os.Stat(p.objectPath("broken")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("broken.json: %v, want nothing written", err)
	}
	// The object that succeeded is in state; the failed one is not.
	var addrs []string
	for _, r := range p.state().Values.RootModule.Resources {
		addrs = append(addrs, r.Address)
	}
	if want := []string{"fakecloud_object.ok"}; !reflect.DeepEqual(addrs, want) {
		t.Errorf("state holds %v, want %v", addrs, want)
	}
}

func TestSleepMakesApplySlow(t *testing.T) {
	t.Parallel()
	p := newProject(t, `
resource "fakecloud_object" "slow" {
  name     = "slow"
  sleep_ms = 1500
}
`)
	start := time.Now()
	p.apply()
	if d := time.Since(start); d < 1500*time.Millisecond {
		t.Errorf("apply took %v, want at least sleep_ms", d)
	}
}

// TestInterruptDuringSlowApply sends terraform SIGINT (as tfexec does when a context is
// cancelled) while an object sleeps in Create: terraform stops the provider, the sleep ends,
// and terraform exits saving the state of what it did, without leaving a lock.
func TestInterruptDuringSlowApply(t *testing.T) {
	t.Parallel()
	p := newProject(t, `
resource "fakecloud_object" "first" {
  name = "first"
}

resource "fakecloud_object" "slow" {
  name       = "slow"
  sleep_ms   = 600000
  depends_on = [fakecloud_object.first]
}
`)
	cmd := p.command("apply", "-auto-approve", "-input=false", "-no-color")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until the provider is inside the slow Create: it holds a marker file meanwhile.
	marker := filepath.Join(p.dir, "objects", ".slow.sleeping")
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(marker); err == nil {
			break
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("fakecloud_object.slow never started sleeping\n%s", stderr.String())
		}
	}
	start := time.Now()
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("terraform did not stop within 60s of SIGINT")
	}
	if err == nil {
		t.Fatalf("interrupted apply exited 0\n%s", stdout.String())
	}
	if !strings.Contains(stderr.String(), `create fakecloud_object "slow" interrupted`) {
		t.Errorf("stderr lacks the interrupted create:\n%s", stderr.String())
	}
	if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("sleep marker left behind: %v", err)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("terraform took %v to stop; sleep_ms should end on interrupt", d)
	}
	if _, err := os.Stat(filepath.Join(p.dir, ".terraform.tfstate.lock.info")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("state lock left behind: %v", err)
	}
	var addrs []string
	for _, r := range p.state().Values.RootModule.Resources {
		addrs = append(addrs, r.Address)
	}
	if want := []string{"fakecloud_object.first"}; !reflect.DeepEqual(addrs, want) {
		t.Errorf("saved state holds %v, want %v", addrs, want)
	}
	if _, err := os.Stat(p.objectPath("slow")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("slow.json: %v, want nothing written by the interrupted create", err)
	}
	// The lock is free: the next plan (which locks state) runs and wants only the slow object.
	if got := actions(p.plan()); got != "fakecloud_object.slow:create" {
		t.Errorf("plan after the interrupt = %q", got)
	}
}

// actions renders a plan's resource changes as "addr:action[,action] ...", no-ops left out.
func actions(plan *tfjson.Plan) string {
	var out []string
	for _, rc := range plan.ResourceChanges {
		if rc.Change.Actions.NoOp() {
			continue
		}
		var as []string
		for _, a := range rc.Change.Actions {
			as = append(as, string(a))
		}
		out = append(out, rc.Address+":"+strings.Join(as, ","))
	}
	return strings.Join(out, " ")
}

// drift renders a plan's resource_drift as addr → "update attr attr" or "delete".
func drift(plan *tfjson.Plan) map[string]string {
	out := map[string]string{}
	for _, rc := range plan.ResourceDrift {
		switch {
		case rc.Change.Actions.Delete():
			out[rc.Address] = "delete"
		case rc.Change.Actions.Update():
			out[rc.Address] = strings.Join(append([]string{"update"}, changed(rc.Change)...), " ")
		default:
			out[rc.Address] = string(rc.Change.Actions[0])
		}
	}
	return out
}

// With FAKECLOUD_ROOT set, a relative dir names a directory inside it, ".." or not: the
// configuration's "../objects" writes nothing beside the working directory.
func TestRootHoldsRelativeDirs(t *testing.T) {
	t.Parallel()
	p := initProject(t, strings.Replace(header, `dir = "objects"`, `dir = "../objects"`, 1)+`
resource "fakecloud_object" "web" {
  name    = "web"
  content = "v1"
}
`)
	root := t.TempDir()
	p.env = append(p.env, testprovider.RootEnv+"="+root)
	p.apply()
	if _, err := os.Stat(filepath.Join(root, "objects", "web.json")); err != nil {
		t.Errorf("web.json in the root: %v", err)
	}
	for _, dir := range []string{filepath.Join(p.dir, "objects"), filepath.Join(p.dir, "..", "objects")} {
		if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: %v, want nothing there", dir, err)
		}
	}
}
