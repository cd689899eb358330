package stage

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tfgate/tfgate/internal/report"
	"github.com/tfgate/tfgate/internal/testenv"
)

// TestSelectionScope: the graph's account is the selection's own — every project it
// selects, with every changed file that touches it and the module it touches it through;
// the shared files; the removed and now-module directories, each once — and a matrix job's
// scope is the whole change's cut down to its project.
func TestSelectionScope(t *testing.T) {
	root := testenv.WriteTree(t, map[string]string{
		"envs/app/main.tf":    "module \"lib\" {\n  source = \"../../modules/lib\"\n}\n",
		"envs/web/main.tf":    "module \"lib\" {\n  source = \"../../modules/lib\"\n}\n",
		"envs/base/main.tf":   `resource "terraform_data" "base" {}` + "\n",
		"envs/gone/main.tf":   `resource "terraform_data" "gone" {}` + "\n",
		"envs/other/main.tf":  `resource "terraform_data" "other" {}` + "\n",
		"modules/lib/main.tf": "",
	})
	testenv.Git(t, root, "init", "-q", "-b", "main")
	testenv.Git(t, root, "add", "-A")
	testenv.Git(t, root, "commit", "-q", "-m", "initial")
	testenv.Git(t, root, "checkout", "-q", "-b", "change")
	for f, content := range map[string]string{
		"modules/lib/extra.tf": "# x\n",
		"envs/web/web.tf":      "# x\n",
		"envs/app/base.tf":     "module \"base\" {\n  source = \"../base\"\n}\n",
		"scripts/hook.sh":      "echo\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, f), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	testenv.Git(t, root, "rm", "-q", "-r", "envs/gone")
	testenv.Git(t, root, "add", "-A")
	testenv.Git(t, root, "commit", "-q", "-m", "change")
	sel, err := Select(t.Context(), SelectOptions{Root: root, Changed: true, Base: "main"})
	if err != nil {
		t.Fatal(err)
	}
	s := sel.Scope()
	want := []report.Touch{
		{Project: "envs/app", Workspace: "default", File: "envs/app/base.tf"},
		{Project: "envs/app", Workspace: "default", File: "modules/lib/extra.tf", Module: "modules/lib"},
		{Project: "envs/web", Workspace: "default", File: "envs/web/web.tf"},
		{Project: "envs/web", Workspace: "default", File: "modules/lib/extra.tf", Module: "modules/lib"},
	}
	if !slices.Equal(s.Touches, want) {
		t.Errorf("touches %+v\nwant %+v", s.Touches, want)
	}
	if !slices.Equal(s.Shared, []string{"scripts/hook.sh"}) {
		t.Errorf("shared %q", s.Shared)
	}
	wantDropped := []report.Dropped{
		{Name: "envs/gone", How: report.DropRemoved, Files: []string{"envs/gone/main.tf"}},
		{Name: "envs/base", How: report.DropToModule, Files: []string{"envs/app/base.tf"}},
	}
	if len(s.Dropped) != len(wantDropped) {
		t.Fatalf("dropped %+v, want %+v", s.Dropped, wantDropped)
	}
	for i, d := range wantDropped {
		if s.Dropped[i].Name != d.Name || s.Dropped[i].How != d.How || !slices.Equal(s.Dropped[i].Files, d.Files) {
			t.Errorf("dropped %d: %+v, want %+v", i, s.Dropped[i], d)
		}
	}
	one, err := Select(t.Context(), SelectOptions{Root: root, Changed: true, Base: "main", Names: []string{"envs/web"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := one.Scope(); !slices.Equal(got.Touches, want[2:]) || !slices.Equal(got.Files, s.Files) || !slices.Equal(got.Shared, s.Shared) || len(got.Dropped) != 2 {
		t.Errorf("a matrix job's scope %+v, want the change's cut down to envs/web", got)
	}
	all, err := Select(t.Context(), SelectOptions{Root: root, All: true})
	if err != nil {
		t.Fatal(err)
	}
	if all.Scope() != nil {
		t.Error("a selection without change detection has a scope")
	}
}
