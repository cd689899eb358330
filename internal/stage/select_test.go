package stage

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/testenv"
)

// TestSelectNotesFormerProject checks that a project the change turns into a module is
// named in Notes, after the removed-code notes, and that one that was a module before is not.
func TestSelectNotesFormerProject(t *testing.T) {
	root := testenv.WriteTree(t, map[string]string{
		"envs/app/main.tf":     `resource "terraform_data" "app" {}` + "\n",
		"envs/base/main.tf":    `resource "terraform_data" "base" {}` + "\n",
		"envs/gone/main.tf":    `resource "terraform_data" "gone" {}` + "\n",
		"envs/web/main.tf":     "module \"lib\" {\n  source = \"../../modules/lib\"\n}\n",
		"modules/lib/main.tf":  "",
		"modules/lib/extra.tf": "",
	})
	testenv.Git(t, root, "init", "-q", "-b", "main")
	testenv.Git(t, root, "add", "-A")
	testenv.Git(t, root, "commit", "-q", "-m", "initial")
	testenv.Git(t, root, "checkout", "-q", "-b", "change")
	if err := os.WriteFile(filepath.Join(root, "envs/app/base.tf"), []byte("module \"base\" {\n  source = \"../base\"\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "envs/web/main.tf"), []byte("module \"lib\" {\n  source = \"../../modules/lib\"\n}\n# edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	testenv.Git(t, root, "rm", "-q", "-r", "envs/gone")
	sel, err := Select(t.Context(), SelectOptions{Root: root, Changed: true, Base: "main"})
	if err != nil {
		t.Fatal(err)
	}
	if len(sel.NowModules) != 1 || sel.NowModules[0].Dir != "envs/base" || !slices.Equal(sel.NowModules[0].UsedBy, []string{"envs/app/base.tf"}) {
		t.Errorf("NowModules = %+v, want envs/base used by envs/app/base.tf", sel.NowModules)
	}
	if len(sel.Notes) != 2 || !strings.Contains(sel.Notes[0], "envs/gone was removed") ||
		sel.Notes[1] != "envs/base is now used as a module by envs/app; it is no longer planned as a project, but may still hold state: destroy what it manages or move its state deliberately" {
		t.Errorf("Notes = %q", sel.Notes)
	}
	if !slices.Equal(sel.Removed, []string{"envs/gone"}) {
		t.Errorf("Removed = %q", sel.Removed)
	}
}

// A matrix job names its project and asks for the change's view of it: the base, the
// merge base, the changed files and the notes of the whole change, and only that project.
// A project the change does not touch is refused.
func TestSelectChangedNamed(t *testing.T) {
	root := testenv.WriteTree(t, map[string]string{
		"a/main.tf": "", "b/main.tf": "", "c/main.tf": "", "gone/main.tf": "",
	})
	testenv.Git(t, root, "init", "-q", "-b", "main")
	testenv.Git(t, root, "add", "-A")
	testenv.Git(t, root, "commit", "-q", "-m", "initial")
	testenv.Git(t, root, "checkout", "-q", "-b", "change")
	for _, f := range []string{"a/x.tf", "b/x.tf"} {
		if err := os.WriteFile(filepath.Join(root, f), []byte("# x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	testenv.Git(t, root, "rm", "-q", "-r", "gone")
	whole, err := Select(t.Context(), SelectOptions{Root: root, Changed: true, Base: "main"})
	if err != nil {
		t.Fatal(err)
	}
	one, err := Select(t.Context(), SelectOptions{Root: root, Changed: true, Base: "main", Names: []string{"b"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(one.Projects) != 1 || one.Projects[0].Name != "b" || !slices.Equal(one.Why, []string{"b/x.tf"}) {
		t.Errorf("projects %v (why %q), want b (b/x.tf)", one.Projects, one.Why)
	}
	if one.Base != whole.Base || one.MergeBase != whole.MergeBase || !slices.Equal(one.Files, whole.Files) || !slices.Equal(one.Notes, whole.Notes) || len(one.Notes) != 1 {
		t.Errorf("selection %+v, want the whole change's base, files and notes: %+v", one, whole)
	}
	_, err = Select(t.Context(), SelectOptions{Root: root, Changed: true, Base: "main", Names: []string{"b", "c"}})
	if err == nil || !strings.Contains(err.Error(), "does not touch c") {
		t.Errorf("c is not changed: err = %v", err)
	}
	if _, err = Select(t.Context(), SelectOptions{Root: root, Changed: true, Base: "main", Names: []string{"nope"}}); err == nil {
		t.Error("an unknown project was selected")
	}
}
