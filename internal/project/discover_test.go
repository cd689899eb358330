package project

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
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
	return Project{Name: dir, Dir: dir, Workspace: "default", WhenModified: DefaultWhenModified, OwnInputs: true, Mode: config.ModeManaged, Modules: modules}
}

func withProblems(p Project, problems ...string) Project {
	p.Problems = problems
	return p
}

func TestDiscoverAutodetect(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, monorepo)
	got, err := Discover(t.Context(), root, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []Project{
		withProblems(project("broken"), "broken/main.tf:1: syntax error: Unclosed configuration block; fix the file (terraform validate shows the details)"),
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
			Name: "network-prod", Dir: "envs/prod/network", Workspace: "default", WhenModified: DefaultWhenModified, OwnInputs: true,
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

// TestDiscoverProblems checks that a problem inside one project's files or modules is
// recorded on every project it concerns and never stops the discovery of the others.
func TestDiscoverProblems(t *testing.T) {
	missingNet := `envs/a/main.tf:4: module "net": source "../../modules/network": directory modules/network does not exist: fix the source or add the module`
	tests := []struct {
		name  string
		files map[string]string
		links map[string]string // symbolic links: name → target
		cfg   *config.Config
		want  []Project
	}{
		{
			name: "module source names a missing directory",
			files: map[string]string{
				"envs/a/main.tf":  "# header\n\n" + module("net", "../../modules/network") + module("ok", "../../modules/ok"),
				"envs/b/main.tf":  module("ok", "../../modules/ok"),
				"modules/ok/x.tf": "",
			},
			want: []Project{
				withProblems(project("envs/a", "modules/ok"), missingNet),
				project("envs/b", "modules/ok"),
			},
		},
		{
			name:  "module source is a file",
			files: map[string]string{"envs/a/main.tf": module("net", "./net.tf"), "envs/a/net.tf": ""},
			want: []Project{withProblems(project("envs/a"),
				`envs/a/main.tf:2: module "net": source "./net.tf": directory envs/a/net.tf does not exist: fix the source or add the module`)},
		},
		{
			name:  "module source leaves the repository",
			files: map[string]string{"a/main.tf": module("x", "../../elsewhere"), "b/main.tf": ""},
			want: []Project{
				withProblems(project("a"), `a/main.tf:2: module "x": source "../../elsewhere" points outside the repository: keep local modules inside it or use a remote source`),
				project("b"),
			},
		},
		{
			name: "a module's problem belongs to every project using it, after the project's own",
			files: map[string]string{
				"p/main.tf":        module("m", "../m") + module("gone", "./gone"),
				"r/main.tf":        module("m", "../m"),
				"m/main.tf.json":   "{\n  \"module\": {\n    \"n\": {\n      \"source\": \"./n\"\n    }\n  }\n}\n",
				"q/other/other.tf": "",
			},
			want: []Project{
				withProblems(project("p", "m"),
					`p/main.tf:5: module "gone": source "./gone": directory p/gone does not exist: fix the source or add the module`,
					`m/main.tf.json:4: module "n": source "./n": directory m/n does not exist: fix the source or add the module`),
				project("q/other"),
				withProblems(project("r", "m"), `m/main.tf.json:4: module "n": source "./n": directory m/n does not exist: fix the source or add the module`),
			},
		},
		{
			name: "syntax error keeps the links of the other files",
			files: map[string]string{
				"app/main.tf":        module("ok", "../modules/ok"),
				"app/broken.tf":      "locals {}\n\nmodule \"x\" {\n  source = \n}\n",
				"modules/ok/ok.tf":   "",
				"other/main.tf":      module("ok", "../modules/ok"),
				"other/typo.tf.json": "{\"module\": {",
			},
			want: []Project{
				withProblems(project("app", "modules/ok"), "app/broken.tf:4: syntax error: Invalid expression; fix the file (terraform validate shows the details)"),
				withProblems(project("other", "modules/ok"), "other/typo.tf.json:1: syntax error: Missing value; fix the file (terraform validate shows the details)"),
			},
		},
		{
			name: "syntax error in a module",
			files: map[string]string{
				"app/main.tf":       module("m", "../modules/m"),
				"modules/m/main.tf": "module \"x\" {\n  source = \"./x\"\n",
			},
			want: []Project{withProblems(project("app", "modules/m"),
				"modules/m/main.tf:1: syntax error: Unclosed configuration block; fix the file (terraform validate shows the details)")},
		},
		{
			// It cannot hide a module link; terraform reports it when the project is planned.
			name:  "syntax error in a file that calls no module",
			files: map[string]string{"app/main.tf": "resource \"terraform_data\" \"x\" {\n"},
			want:  []Project{project("app")},
		},
		{
			name:  "file that cannot be read",
			files: map[string]string{"app/main.tf": "", "other/main.tf": ""},
			links: map[string]string{"app/link.tf": "nowhere.tf"},
			want: []Project{
				withProblems(project("app"), "app/link.tf: cannot be read: no such file or directory; fix or remove the file"),
				project("other"),
			},
		},
		{
			name:  "configured project's module is missing",
			files: map[string]string{"a/main.tf": module("m", "./m"), "b/main.tf": module("m", "./m")},
			cfg:   &config.Config{File: ".tfgate.yaml", Projects: []config.Project{{Name: "a", Dir: "a", Line: 3}}},
			want: []Project{{
				Name: "a", Dir: "a", Workspace: "default", WhenModified: DefaultWhenModified, OwnInputs: true, Mode: config.ModeManaged,
				Problems: []string{`a/main.tf:2: module "m": source "./m": directory a/m does not exist: fix the source or add the module`},
			}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			writeTree(t, root, tt.files)
			for name, target := range tt.links {
				if err := os.Symlink(target, filepath.Join(root, filepath.FromSlash(name))); err != nil {
					t.Fatal(err)
				}
			}
			got, err := Discover(t.Context(), root, tt.cfg)
			if err != nil {
				t.Fatalf("Discover: %v", err)
			}
			assertProjects(t, got, tt.want)
		})
	}
}

// TestDiscoverErrors checks what still fails Discover: problems of the repository or the
// configuration as a whole.
func TestDiscoverErrors(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]string
		root    string // relative to the temporary directory; "" for the directory itself
		cfg     *config.Config
		wantErr []string
	}{
		{
			name:    "root does not exist",
			root:    "nowhere",
			wantErr: []string{"scan ", "nowhere: ", "no such file or directory"},
		},
		{
			name:  "configured project directory is missing",
			files: map[string]string{"a/main.tf": module("m", "./m")},
			cfg: &config.Config{File: "ci/.tfgate.yaml", Projects: []config.Project{
				{Name: "a", Dir: "a", Line: 3},
				{Name: "gone", Dir: "envs/gone", Line: 7},
			}},
			wantErr: []string{`ci/.tfgate.yaml:7: project gone: directory "envs/gone" does not exist in the repository`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			writeTree(t, root, tt.files)
			got, err := Discover(t.Context(), filepath.Join(root, tt.root), tt.cfg)
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

// assertProjects compares projects without Nested and Links, which contents_test.go checks.
func assertProjects(t *testing.T, got, want []Project) {
	t.Helper()
	got = slices.Clone(got)
	for i := range got {
		got[i].Nested, got[i].Links, got[i].Linked = nil, nil, nil
	}
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
