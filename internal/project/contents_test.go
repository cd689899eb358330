package project

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/config"
)

// library is a module library as public ones are shaped: the root is a module used by
// examples/*, modules/lb has a sub-module recipe-x, an environment links a shared tfvars.
var library = map[string]string{
	"main.tf":                           `resource "terraform_data" "root" {}` + "\n",
	"variables.tf":                      "variable \"name\" {}\n",
	"README.md":                         "# library\n",
	"Makefile":                          "test:\n",
	"templates/init.sh":                 "#!/bin/sh\n",
	".github/workflows/ci.yml":          "on: push\n",
	"examples/simple/main.tf":           module("root", "../../"),
	"examples/simple/README.md":         "",
	"examples/complete/main.tf":         module("root", "../../") + module("lb", "../../modules/lb"),
	"examples/recipe/main.tf":           module("x", "../../modules/lb/recipe-x"),
	"modules/lb/main.tf":                "variable \"a\" {}\n",
	"modules/lb/files/policy.json":      "{}\n",
	"modules/lb/recipe-x/main.tf":       "variable \"b\" {}\n",
	"modules/lb/recipe-x/versions.tofu": "terraform {}\n",
	"envs/prod/main.tf":                 "variable \"c\" {}\n",
	"envs/dev/main.tf":                  "variable \"c\" {}\n",
	"common.auto.tfvars":                "c = 1\n",
	"test/fixtures/broken/main.tf":      "module \"x\" {\n",
}

func writeLibrary(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	writeTree(t, root, library)
	for _, env := range []string{"prod", "dev"} {
		if err := os.Symlink("../../common.auto.tfvars", filepath.Join(root, "envs", env, "common.auto.tfvars")); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestChangedLibrary(t *testing.T) {
	root := writeLibrary(t)
	ps, err := Discover(t.Context(), root, &config.Config{Autodetect: config.Autodetect{Exclude: []string{"test/**"}}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := names(ps), []string{"envs/dev", "envs/prod", "examples/complete", "examples/recipe", "examples/simple"}; !slices.Equal(got, want) {
		t.Fatalf("projects = %q, want %q", got, want)
	}
	tests := []struct {
		name  string
		files []string
		want  []string
	}{
		{name: "root module's own Terraform file", files: []string{"variables.tf"}, want: []string{"examples/complete", "examples/simple"}},
		{name: "root module's template", files: []string{"templates/init.sh"}, want: []string{"examples/complete", "examples/simple"}},
		{name: "root README and a workflow file", files: []string{"README.md", ".github/workflows/ci.yml"}, want: nil},
		{name: "another example's README", files: []string{"examples/simple/README.md"}, want: nil},
		{name: "deleted file in another example", files: []string{"examples/gone/main.tf"}, want: nil},
		{name: "an unrelated module", files: []string{"modules/other/main.tf"}, want: nil},
		{name: "an excluded fixture", files: []string{"test/fixtures/broken/main.tf"}, want: nil},
		{name: "an example's own file", files: []string{"examples/simple/main.tf"}, want: []string{"examples/simple"}},
		{name: "nested sub-module selects its users only", files: []string{"modules/lb/recipe-x/main.tf"}, want: []string{"examples/recipe"}},
		{name: "nested sub-module's OpenTofu file", files: []string{"modules/lb/recipe-x/versions.tofu"}, want: []string{"examples/recipe"}},
		{name: "parent module's file", files: []string{"modules/lb/files/policy.json"}, want: []string{"examples/complete"}},
		{name: "symlink target", files: []string{"common.auto.tfvars"}, want: []string{"envs/dev", "envs/prod", "examples/complete", "examples/simple"}},
		{name: "the link itself", files: []string{"envs/prod/common.auto.tfvars"}, want: []string{"envs/prod"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := changedNames(ps, tt.files); !slices.Equal(got, tt.want) {
				t.Errorf("ChangedWhy(%q) = %q, want %q", tt.files, got, tt.want)
			}
		})
	}
	// Without the exclusion the broken fixture is a project, with its problem.
	all, err := Discover(t.Context(), root, nil)
	if err != nil {
		t.Fatal(err)
	}
	if i := slices.IndexFunc(all, func(p Project) bool { return p.Dir == "test/fixtures/broken" }); i < 0 || len(all[i].Problems) == 0 {
		t.Errorf("without exclusions the fixture is a project with a problem: %q", names(all))
	}
}

func TestSymlinkOutsideRepository(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "repo")
	writeTree(t, base, map[string]string{"secret.tfvars": "x = 1\n", "repo/envs/a/main.tf": "", "repo/envs/b/main.tf": ""})
	if err := os.Symlink("../../../secret.tfvars", filepath.Join(root, "envs/a/x.auto.tfvars")); err != nil {
		t.Fatal(err)
	}
	ps, err := Discover(t.Context(), root, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 2 || len(ps[0].Problems) != 1 || !strings.Contains(ps[0].Problems[0], "envs/a/x.auto.tfvars: symbolic link points outside the repository") || len(ps[1].Problems) != 0 {
		t.Errorf("problems = %q / %q, want the link named as leaving the repository for envs/a only", ps[0].Problems, ps[1].Problems)
	}
}

// TestDiscoverIn checks a root below the git top level: a module outside root but in the
// repository is a module, not a problem, and its changes select its users.
func TestDiscoverIn(t *testing.T) {
	top := t.TempDir()
	writeTree(t, top, map[string]string{
		"shared/net/main.tf":   "variable \"a\" {}\n",
		"infra/live/a/main.tf": module("net", "../../../shared/net"),
		"infra/live/b/main.tf": module("up", "../../../../outside"),
		"outside.tf":           "",
	})
	if err := os.Symlink("../../../shared/common.tfvars", filepath.Join(top, "infra/live/a/common.auto.tfvars")); err != nil {
		t.Fatal(err)
	}
	d, err := DiscoverIn(t.Context(), top, filepath.Join(top, "infra"), nil)
	if err != nil {
		t.Fatal(err)
	}
	ps := d.Projects
	if got := names(ps); !slices.Equal(got, []string{"live/a", "live/b"}) {
		t.Fatalf("projects = %q", got)
	}
	if !slices.Equal(ps[0].Modules, []string{"../shared/net"}) || len(ps[0].Problems) != 0 || !slices.Equal(ps[0].Links, []string{"../shared/common.tfvars"}) {
		t.Errorf("live/a = %+v", ps[0])
	}
	if len(ps[1].Problems) != 1 || !strings.Contains(ps[1].Problems[0], "points outside the repository") {
		t.Errorf("live/b problems = %q", ps[1].Problems)
	}
	if got := changedNames(ps[:1], []string{"../shared/net/main.tf"}); !slices.Equal(got, []string{"live/a"}) {
		t.Errorf("change outside root selects %q", got)
	}
	if got := changedNames(ps[:1], []string{"../shared/common.tfvars"}); !slices.Equal(got, []string{"live/a"}) {
		t.Errorf("linked file outside root selects %q", got)
	}
}

func TestInContents(t *testing.T) {
	nested := []string{"modules/lb/recipe-x", "examples/a"}
	tests := []struct {
		dir, file string
		want      bool
	}{
		{"modules/lb", "modules/lb/main.tf", true},
		{"modules/lb", "modules/lb/files/x.json", true},
		{"modules/lb", "modules/lb/recipe-x/main.tf", false},
		{"modules/lb/recipe-x", "modules/lb/recipe-x/main.tf", true},
		{"modules/lb", "modules/lb/README.md", false},
		{"modules/lb", "modules/lb/.terraform.lock.hcl", true},
		{"modules/lb", "modules/lb/.terraform/x", false},
		{"modules/lb", "modules/lb/terraform.tfstate", false},
		{"modules/lb", "modules/lbx/main.tf", false},
		{".", "main.tf", true},
		{".", "examples/a/main.tf", false},
		{".", "examples/README.txt", true},
		{".", ".github/ci.yml", false},
		{".", "../x.tf", false},
		{"../shared", "../shared/main.tf", true},
	}
	for _, tt := range tests {
		if got := inContents(tt.dir, nested, tt.file); got != tt.want {
			t.Errorf("inContents(%q, %q) = %v, want %v", tt.dir, tt.file, got, tt.want)
		}
	}
}
