package pipeline

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/stage"
	"github.com/tfgate/tfgate/internal/testenv"
)

// The base commit's view selects what the change's own configuration drops, names the
// base projects nothing plans any more, and lists the committed files outside every
// project that the base does not mark inert.
func TestSelectBaseView(t *testing.T) {
	cfg := "version: 1\nignore: [\"docs/**\"]\nprojects:\n  - name: quiet\n    dir: quiet\n  - name: gone\n    dir: gone\n  - name: other\n    dir: other\n"
	root := testenv.WriteTree(t, map[string]string{
		".tfgate.yaml":    cfg,
		"quiet/main.tf":   "# v1\n",
		"gone/main.tf":    "# v1\n",
		"other/main.tf":   "# v1\n",
		"scripts/hook.sh": "v1\n",
		"docs/guide.txt":  "v1\n",
	})
	testenv.Git(t, root, "init", "-q", "-b", "main")
	testenv.Git(t, root, "add", "-A")
	testenv.Git(t, root, "commit", "-q", "-m", "initial")
	testenv.Git(t, root, "checkout", "-q", "-b", "change")
	// The change: quiet's when_modified matches nothing, gone leaves projects:, both change;
	// the hook, a doc and the configuration change too; an untracked file appears.
	head := "version: 1\nignore: [\"scripts/**\", \"docs/**\"]\nprojects:\n  - name: quiet\n    dir: quiet\n    when_modified: [\"nothing\"]\n  - name: other\n    dir: other\n"
	for f, data := range map[string]string{".tfgate.yaml": head, "quiet/main.tf": "# v2\n", "gone/main.tf": "# v2\n",
		"scripts/hook.sh": "v2\n", "docs/guide.txt": "v2\n"} {
		if err := os.WriteFile(filepath.Join(root, f), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	testenv.Git(t, root, "commit", "-q", "-am", "change")
	if err := os.WriteFile(filepath.Join(root, "untracked.sh"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	headCfg := mustParse(t, head)
	sel, err := stage.Select(t.Context(), stage.SelectOptions{Root: root, Config: headCfg, Changed: true, Base: "main"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range sel.Projects {
		names = append(names, p.Name)
	}
	if !slices.Equal(names, []string{"quiet"}) || !slices.Equal(sel.ByBase, []string{"quiet"}) {
		t.Errorf("projects %q (by base %q), want quiet, by the base's view", names, sel.ByBase)
	}
	if len(sel.Vanished) != 1 || sel.Vanished[0].Project.Name != "gone" || sel.Vanished[0].File != "gone/main.tf" {
		t.Errorf("vanished %+v, want gone (gone/main.tf)", sel.Vanished)
	}
	// scripts/** is ignored only by the change's own configuration: it counts. The doc is
	// inert at the base; the untracked file is no part of the change.
	if want := []string{".tfgate.yaml", "scripts/hook.sh"}; !slices.Equal(sel.Shared, want) {
		t.Errorf("shared %q, want %q", sel.Shared, want)
	}
	if len(sel.Notes) != 3 {
		t.Errorf("notes %q, want one each for quiet, gone and the shared files", sel.Notes)
	}
	reviews := reviewTargets(sel)
	if len(reviews) != 2 || reviews[0].review != "vanished" || reviews[1].review != "shared" {
		t.Errorf("review targets %+v", reviews)
	}
}

func mustParse(t *testing.T, src string) *config.Config {
	t.Helper()
	cfg, err := config.Parse([]byte(src), config.FileName, "")
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}
