package testprovider_test

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/tfgate/tfgate/internal/testenv"
)

// TestOneNormalPlanReportsAllDrift answers issue 11's question: can `tfgate drift` run one
// normal plan per project, reading drift from its resource_drift and pending code from its
// resource_changes, instead of a refresh-only plan and a normal plan?
//
// Finding (terraform 1.5.7): yes. A normal plan refreshes every managed resource in state
// (orphans included) and its JSON resource_drift lists every out-of-band change, exactly as a
// refresh-only plan's does: content, tags and secret edits, deletions, edits that happen to
// match a pending code change, edits hidden from the plan by ignore_changes, and edits of
// resources the code no longer declares. Terraform filters drift by relevance only in its
// human-readable output ("Objects have changed outside of Terraform" is left out when no
// planned change depends on the drift: it prints "No changes. Your infrastructure matches
// the configuration."), never in the JSON, so tfgate must read `show -json`. Consequences
// for the drift command:
//   - drift alone does not make `plan -detailed-exitcode` exit 2 (TestDriftWithoutChanges-
//     ExitsZero): the status comes from resource_drift, not from the exit code;
//   - a plan never writes the refreshed state, so the one plan leaves state untouched;
//   - the shortcut needs the plan to succeed; a project whose plan fails is "error" either
//     way (a refresh-only plan evaluates the same configuration).
func TestOneNormalPlanReportsAllDrift(t *testing.T) {
	t.Parallel()
	p := newProject(t, `
resource "fakecloud_object" "content" {
  name    = "content"
  content = "v1"
}

resource "fakecloud_object" "tags" {
  name = "tags"
  tags = { env = "prod" }
}

resource "fakecloud_object" "secret" {
  name   = "secret"
  secret = "hunter2"
}

resource "fakecloud_object" "deleted" {
  name    = "deleted"
  content = "v1"
}

resource "fakecloud_object" "converged" {
  name    = "converged"
  content = "v1"
}

resource "fakecloud_object" "ignored" {
  name    = "ignored"
  content = "v1"
  lifecycle {
    ignore_changes = [content]
  }
}

resource "fakecloud_object" "orphan" {
  name    = "orphan"
  content = "v1"
}

resource "fakecloud_object" "orphan_deleted" {
  name    = "orphan-deleted"
  content = "v1"
}

resource "fakecloud_object" "untouched" {
  name    = "untouched"
  content = "v1"
}
`)
	p.apply()

	// Out of band: the console edits and deletions.
	p.editObject("content", func(o map[string]any) { o["content"] = "v2" })
	p.editObject("tags", func(o map[string]any) { o["tags"] = map[string]any{"env": "prod", "owner": "ops"} })
	p.editObject("secret", func(o map[string]any) { o["secret"] = "rotated" })
	p.editObject("converged", func(o map[string]any) { o["content"] = "v2" })
	p.editObject("ignored", func(o map[string]any) { o["content"] = "v2" })
	p.editObject("orphan", func(o map[string]any) { o["content"] = "v2" })
	for _, name := range []string{"deleted", "orphan-deleted"} {
		if err := os.Remove(p.objectPath(name)); err != nil {
			t.Fatal(err)
		}
	}
	// In Git, not applied: converged's code now says what the console did; the orphans are
	// removed from the code.
	p.writeConfig(`
resource "fakecloud_object" "content" {
  name    = "content"
  content = "v1"
}

resource "fakecloud_object" "tags" {
  name = "tags"
  tags = { env = "prod" }
}

resource "fakecloud_object" "secret" {
  name   = "secret"
  secret = "hunter2"
}

resource "fakecloud_object" "deleted" {
  name    = "deleted"
  content = "v1"
}

resource "fakecloud_object" "converged" {
  name    = "converged"
  content = "v2"
}

resource "fakecloud_object" "ignored" {
  name    = "ignored"
  content = "v1"
  lifecycle {
    ignore_changes = [content]
  }
}

resource "fakecloud_object" "untouched" {
  name    = "untouched"
  content = "v1"
}
`)

	wantDrift := map[string]string{
		"fakecloud_object.content":        "update content",
		"fakecloud_object.tags":           "update tags",
		"fakecloud_object.secret":         "update secret",
		"fakecloud_object.deleted":        "delete",
		"fakecloud_object.converged":      "update content",
		"fakecloud_object.ignored":        "update content",
		"fakecloud_object.orphan":         "update content",
		"fakecloud_object.orphan_deleted": "delete",
	}
	refreshOnly := drift(p.plan("-refresh-only"))
	if !reflect.DeepEqual(refreshOnly, wantDrift) {
		t.Errorf("refresh-only plan's resource_drift =\n%v\nwant\n%v", refreshOnly, wantDrift)
	}
	normal := p.plan()
	if got := drift(normal); !reflect.DeepEqual(got, refreshOnly) {
		t.Errorf("normal plan's resource_drift =\n%v\nrefresh-only plan's =\n%v", got, refreshOnly)
	}
	// The same plan's resource_changes are the pending work: converged and ignored drift
	// cause none, the orphan_deleted object is already gone.
	wantChanges := "fakecloud_object.content:update fakecloud_object.deleted:create " +
		"fakecloud_object.orphan:delete fakecloud_object.secret:update fakecloud_object.tags:update"
	if got := actions(normal); got != wantChanges {
		t.Errorf("normal plan's changes =\n%s\nwant\n%s", got, wantChanges)
	}
}

// TestDriftWithoutChangesExitsZero: drift that the code already matches (or ignores) is in
// resource_drift, but `plan -detailed-exitcode` says "no changes" (exit 0).
func TestDriftWithoutChangesExitsZero(t *testing.T) {
	t.Parallel()
	p := newProject(t, `
resource "fakecloud_object" "ignored" {
  name    = "ignored"
  content = "v1"
  lifecycle {
    ignore_changes = [content]
  }
}
`)
	p.apply()
	p.editObject("ignored", func(o map[string]any) { o["content"] = "v2" })

	_, stderr, err := p.run("plan", "-input=false", "-no-color", "-detailed-exitcode", "-out=test.tfplan")
	if err != nil {
		t.Fatalf("plan -detailed-exitcode: %v, want exit 0\n%s", err, stderr)
	}
	plan := p.plan()
	if got, want := drift(plan), map[string]string{"fakecloud_object.ignored": "update content"}; !reflect.DeepEqual(got, want) {
		t.Errorf("resource_drift = %v, want %v", got, want)
	}
	if got := actions(plan); got != "" {
		t.Errorf("changes = %q, want none", got)
	}
}

// TestExampleDrift keeps examples/drift working: its README's out-of-band edit and deletion
// show up as drift.
func TestExampleDrift(t *testing.T) {
	t.Parallel()
	mainTF, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "examples", "drift", "main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	p := initProject(t, string(mainTF))
	p.apply()
	p.editObject("web", func(o map[string]any) { o["content"] = "replicas=5" })
	if err := os.Remove(p.objectPath("db")); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"fakecloud_object.web": "update content", "fakecloud_object.db": "delete"}
	if got := drift(p.plan("-refresh-only")); !reflect.DeepEqual(got, want) {
		t.Errorf("drift = %v, want %v", got, want)
	}
}
