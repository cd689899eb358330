package project

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/config"
)

// writeTree writes name → content under root, creating parent directories.
func writeTree(tb testing.TB, root string, files map[string]string) {
	tb.Helper()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

func module(name, source string) string {
	return fmt.Sprintf("module %q {\n  source = %q\n}\n", name, source)
}

// monorepo has environments sharing modules, a module used only through another module,
// a module under a hidden directory, a nested project, an unused module, a file that does
// not parse, a module cycle and directories autodetection must not enter.
var monorepo = map[string]string{
	"README.md":                                    "# infra\n",
	"envs/prod/main.tf":                            `resource "terraform_data" "x" {}` + "\n",
	"envs/prod/network/main.tf":                    module("net", "../../../modules/network"),
	"envs/prod/app/main.tf":                        module("app", "../../../modules/app"),
	"envs/prod/app/tags.tf.json":                   `{"module": {"tags": {"source": "../../../modules/tags"}}}`,
	"envs/prod/app/prod.tfvars":                    "size = 2\n",
	"envs/dev/app/main.tf":                         module("app", "../../../modules/app") + module("remote", "hashicorp/consul/aws") + module("git", "git::https://example.com/x.git"),
	"envs/dev/app/hidden.tf":                       module("hidden", "../../../.shared/mod"),
	"envs/dev/app/variables.tf":                    `variable "module" {}` + "\n",
	"modules/app/main.tf":                          module("tags", "../tags"),
	"modules/tags/main.tf":                         `variable "tags" {}` + "\n",
	"modules/network/main.tf":                      module("sub", "./sub"),
	"modules/network/sub/main.tf":                  `resource "terraform_data" "sub" {}` + "\n",
	"modules/unused/main.tf":                       `variable "module_name" {}` + "\n",
	".shared/mod/main.tf":                          `variable "x" {}` + "\n",
	"broken/main.tf":                               "module \"x\" {\n  source = \"./nope\"\n",
	"cycle/a/main.tf":                              module("b", "../b"),
	"cycle/b/main.tf":                              module("a", "../a"),
	"docs/README.md":                               "not terraform\n",
	".github/ci/main.tf":                           "# hidden dir\n",
	"envs/prod/app/.terraform/modules/app/main.tf": module("x", "./missing"),
	"testdata/fixture/main.tf":                     module("x", "./missing"),
	"node_modules/pkg/main.tf":                     "",
}

func project(dir string, modules ...string) Project {
	return Project{Name: dir, Dir: dir, Workspace: "default", WhenModified: DefaultWhenModified, Mode: config.ModeManaged, Modules: modules}
}

func TestDiscoverAutodetect(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, monorepo)
	got, err := Discover(t.Context(), root, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []Project{
		project("broken"),
		project("envs/dev/app", ".shared/mod", "modules/app", "modules/tags"),
		project("envs/prod"),
		project("envs/prod/app", "modules/app", "modules/tags"),
		project("envs/prod/network", "modules/network", "modules/network/sub"),
		project("modules/unused"),
	}
	assertProjects(t, got, want)

	// An empty configuration autodetects too.
	got, err = Discover(t.Context(), root, config.Default())
	if err != nil {
		t.Fatal(err)
	}
	assertProjects(t, got, want)
}

func TestDiscoverRootProject(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"main.tf":           module("m", "./modules/m"),
		"modules/m/main.tf": "",
		"other/main.tf":     "",
	})
	got, err := Discover(t.Context(), root, nil)
	if err != nil {
		t.Fatal(err)
	}
	assertProjects(t, got, []Project{project(".", "modules/m"), project("other")})
}

func TestDiscoverConfigured(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, monorepo)
	// An unconfigured directory with a bad module source is none of tfgate's business.
	writeTree(t, root, map[string]string{"unlisted/main.tf": module("x", "./missing")})
	cfg := &config.Config{
		File: ".tfgate.yaml",
		Projects: []config.Project{
			{Name: "network-prod", Dir: "envs/prod/network", Line: 4},
			{
				Name: "app-dev", Dir: "envs/dev/app", Workspace: "dev", VarFiles: []string{"dev.tfvars"},
				WhenModified: []string{"*.tf"}, DependsOn: []string{"network-prod"}, Mode: config.ModeObserve, Line: 6,
			},
			{Name: "tags", Dir: "modules/tags", WhenModified: []string{}, Line: 12},
		},
	}
	got, err := Discover(t.Context(), root, cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := []Project{
		{
			Name: "network-prod", Dir: "envs/prod/network", Workspace: "default", WhenModified: DefaultWhenModified,
			Mode: config.ModeManaged, Modules: []string{"modules/network", "modules/network/sub"},
		},
		{
			Name: "app-dev", Dir: "envs/dev/app", Workspace: "dev", VarFiles: []string{"dev.tfvars"},
			WhenModified: []string{"*.tf"}, DependsOn: []string{"network-prod"}, Mode: config.ModeObserve,
			Modules: []string{".shared/mod", "modules/app", "modules/tags"},
		},
		{Name: "tags", Dir: "modules/tags", Workspace: "default", WhenModified: []string{}, Mode: config.ModeManaged},
	}
	assertProjects(t, got, want)
}

func TestDiscoverErrors(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]string
		cfg     *config.Config
		wantErr []string
	}{
		{
			name:    "module source names a missing directory",
			files:   map[string]string{"envs/a/main.tf": "# header\n\n" + module("net", "../../modules/network")},
			wantErr: []string{`envs/a/main.tf:4: module "net": source "../../modules/network": directory modules/network does not exist`},
		},
		{
			name:    "module source is a file",
			files:   map[string]string{"envs/a/main.tf": module("net", "./net.tf"), "envs/a/net.tf": ""},
			wantErr: []string{`envs/a/main.tf:2: module "net": source "./net.tf": directory envs/a/net.tf does not exist`},
		},
		{
			name:    "module source leaves the repository",
			files:   map[string]string{"a/main.tf": module("x", "../../elsewhere")},
			wantErr: []string{`a/main.tf:2: module "x": source "../../elsewhere" points outside the repository`},
		},
		{
			name: "missing module deep in the graph, JSON syntax, every problem at once",
			files: map[string]string{
				"p/main.tf":        module("m", "../m"),
				"m/main.tf.json":   "{\n  \"module\": {\n    \"n\": {\n      \"source\": \"./n\"\n    }\n  }\n}\n",
				"q/main.tf":        module("gone", "./gone"),
				"q/other/other.tf": "",
			},
			wantErr: []string{
				`m/main.tf.json:4: module "n": source "./n": directory m/n does not exist`,
				`q/main.tf:2: module "gone": source "./gone": directory q/gone does not exist`,
			},
		},
		{
			name:  "configured project directory is missing",
			files: map[string]string{"a/main.tf": ""},
			cfg: &config.Config{File: "ci/.tfgate.yaml", Projects: []config.Project{
				{Name: "a", Dir: "a", Line: 3},
				{Name: "gone", Dir: "envs/gone", Line: 7},
			}},
			wantErr: []string{`ci/.tfgate.yaml:7: project gone: directory "envs/gone" does not exist in the repository`},
		},
		{
			name:  "configured project's module is missing",
			files: map[string]string{"a/main.tf": module("m", "./m")},
			cfg:   &config.Config{File: ".tfgate.yaml", Projects: []config.Project{{Name: "a", Dir: "a", Line: 3}}},
			wantErr: []string{
				`a/main.tf:2: module "m": source "./m": directory a/m does not exist`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			writeTree(t, root, tt.files)
			got, err := Discover(t.Context(), root, tt.cfg)
			if err == nil {
				t.Fatalf("Discover() = %v, want an error", names(got))
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error:\n%v\nwant it to contain\n%s", err, w)
				}
			}
		})
	}
}

func TestDiscoverCancelled(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, monorepo)
	ctx, cancel := contextWithCancel(t)
	cancel()
	if _, err := Discover(ctx, root, nil); err == nil {
		t.Fatal("Discover with a cancelled context succeeded")
	}
}

func assertProjects(t *testing.T, got, want []Project) {
	t.Helper()
	if reflect.DeepEqual(got, want) {
		return
	}
	t.Errorf("projects differ")
	for i := 0; i < max(len(got), len(want)); i++ {
		var g, w any = "(none)", "(none)"
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("[%d]\n got  %+v\n want %+v", i, g, w)
		}
	}
}
