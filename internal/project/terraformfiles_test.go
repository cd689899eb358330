package project

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestCommittedDataDirs(t *testing.T) {
	projects := []Project{
		{Name: "app", Dir: "app"},
		{Name: "app-staging", Dir: "app", Workspace: "staging"},
		{Name: "prod-db", Dir: "envs/prod/db"},
		{Name: "root", Dir: "."},
	}
	tests := []struct {
		name    string
		tracked []string
		want    map[string][]string // project → files
	}{
		{name: "nothing tracked", tracked: nil, want: map[string][]string{}},
		{name: "backend cache", tracked: []string{"app/.terraform/terraform.tfstate"},
			want: map[string][]string{"app": {"app/.terraform/terraform.tfstate"}, "app-staging": {"app/.terraform/terraform.tfstate"}}},
		{name: "modules and environment", tracked: []string{"app/.terraform/environment", "app/.terraform/modules/modules.json"},
			want: map[string][]string{"app": {"app/.terraform/environment", "app/.terraform/modules/modules.json"},
				"app-staging": {"app/.terraform/environment", "app/.terraform/modules/modules.json"}}},
		{name: "a link named .terraform", tracked: []string{"envs/prod/db/.terraform"},
			want: map[string][]string{"prod-db": {"envs/prod/db/.terraform"}}},
		{name: "a directory above", tracked: []string{"envs/.terraform/terraform.tfstate"},
			want: map[string][]string{"prod-db": {"envs/.terraform/terraform.tfstate"}}},
		{name: "the root's: every project", tracked: []string{".terraform/environment"},
			want: map[string][]string{"app": {".terraform/environment"}, "app-staging": {".terraform/environment"},
				"prod-db": {".terraform/environment"}, "root": {".terraform/environment"}}},
		{name: "below a project, or elsewhere: not its working directory", tracked: []string{"app/sub/.terraform/x", "other/.terraform/x", "app/.terraformx/y", "app/x.terraform/y"},
			want: map[string][]string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := map[string][]string{}
			for _, c := range CommittedDataDirs(projects, tc.tracked) {
				got[c.Project.Name] = c.Files
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestCommittedDataDirMessage(t *testing.T) {
	c := CommittedDataDirs([]Project{{Name: "app", Dir: "envs/app"}},
		[]string{"envs/.terraform/environment", "envs/app/.terraform/terraform.tfstate"})
	if len(c) != 1 {
		t.Fatalf("got %v", c)
	}
	msg := c[0].Error()
	for _, want := range []string{
		"envs/app/.terraform, envs/.terraform are committed",
		"envs/app/.terraform/terraform.tfstate, envs/.terraform/environment",
		"point app's state at another backend",
		"git rm -r --cached envs/app/.terraform envs/.terraform",
		"add .terraform/ to .gitignore",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
}

// TestChangedTerraformReads: what terraform reads from a project's directory by itself
// touches the project whatever its globs: a provider binary in terraform.d/plugins, a
// committed .terraform there or above. An empty when_modified still keeps a project out.
func TestChangedTerraformReads(t *testing.T) {
	projects := []Project{
		{Name: "app", Dir: "app", WhenModified: []string{"*.tf"}},
		{Name: "app-staging", Dir: "app", Workspace: "staging", WhenModified: []string{"*.tf"}},
		{Name: "db", Dir: "envs/db", WhenModified: DefaultWhenModified, OwnInputs: true},
		{Name: "manual", Dir: "manual", WhenModified: []string{}},
		{Name: "lib-user", Dir: "svc", WhenModified: []string{"*.tf"}, Modules: []string{"modules/lib"}},
	}
	tests := []struct {
		name  string
		files []string
		want  []string
	}{
		{name: "a provider binary", files: []string{"app/terraform.d/plugins/registry.terraform.io/acme/x/1.0.0/linux_amd64/terraform-provider-x"},
			want: []string{"app", "app-staging"}},
		{name: "terraform.d/plugins as a link", files: []string{"app/terraform.d/plugins"}, want: []string{"app", "app-staging"}},
		{name: "terraform.d itself as a link", files: []string{"app/terraform.d"}, want: []string{"app", "app-staging"}},
		{name: "elsewhere in terraform.d: not read", files: []string{"app/terraform.d/notes.txt"}, want: []string{}},
		// A module's directory is no working directory: its terraform.d is only contents.
		{name: "a module's terraform.d", files: []string{"modules/lib/terraform.d/plugins/x"}, want: []string{"lib-user"}},
		{name: "the backend cache", files: []string{"app/.terraform/terraform.tfstate"}, want: []string{"app", "app-staging"}},
		{name: "a data directory above", files: []string{"envs/.terraform/environment"}, want: []string{"db"}},
		{name: "the opt-out project stays out", files: []string{"manual/terraform.d/plugins/x", "manual/.terraform/environment"}, want: []string{}},
		{name: "own inputs: selected anyway", files: []string{"envs/db/terraform.d/plugins/x"}, want: []string{"db"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := changedNames(projects, tc.files); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestProviderBinaryNotes(t *testing.T) {
	projects := []Project{
		{Name: "app", Dir: "app"},
		{Name: "app-staging", Dir: "app", Workspace: "staging"},
		{Name: "db", Dir: "db"},
		{Name: "top", Dir: "."},
	}
	bin := "app/terraform.d/plugins/registry.terraform.io/acme/x/1.0.0/linux_amd64/terraform-provider-x_v1.0.0"
	tests := []struct {
		name    string
		changed []string
		deleted []string
		want    []string
	}{
		{name: "none", changed: []string{"app/main.tf"}},
		{name: "one binary, two workspaces", changed: []string{"app/main.tf", bin}, want: []string{
			"provider binary terraform loads from app's directory (app/terraform.d/plugins, its implied local mirror); it runs with apply's credentials: " + bin +
				" — review as code: projects app, app-staging need their approvals for this change"}},
		{name: "removed: nothing to load", changed: []string{bin}, deleted: []string{bin}},
		{name: "the root's, one project", changed: []string{"terraform.d/plugins/a.zip", "terraform.d/plugins/b.zip"}, want: []string{
			"provider binaries terraform loads from the root directory (terraform.d/plugins, its implied local mirror); they run with apply's credentials: terraform.d/plugins/a.zip, terraform.d/plugins/b.zip" +
				" — review as code: project top needs its approvals for this change"}},
		{name: "many files", changed: []string{"db/terraform.d/plugins/1", "db/terraform.d/plugins/2", "db/terraform.d/plugins/3", "db/terraform.d/plugins/4", "db/terraform.d/plugins/5", "db/terraform.d/plugins/6", "db/terraform.d/plugins/7"},
			want: []string{"provider binaries terraform loads from db's directory (db/terraform.d/plugins, its implied local mirror); they run with apply's credentials: " +
				"db/terraform.d/plugins/1, db/terraform.d/plugins/2, db/terraform.d/plugins/3, db/terraform.d/plugins/4, db/terraform.d/plugins/5 and 2 more" +
				" — review as code: project db needs its approvals for this change"}},
		{name: "no project's directory", changed: []string{"modules/x/terraform.d/plugins/p"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ProviderBinaryNotes(projects, tc.changed, tc.deleted)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}

func TestLinkedPlugins(t *testing.T) {
	for _, tc := range []struct {
		name  string
		links map[string]string // link → target, relative to the project directory
		want  string            // the link named, "" = fine
	}{
		{name: "none"},
		{name: "terraform.d", links: map[string]string{"terraform.d": "../vendor"}, want: "app/terraform.d"},
		{name: "plugins", links: map[string]string{"terraform.d/plugins": "../../vendor/plugins"}, want: "app/terraform.d/plugins"},
		{name: "inside", links: map[string]string{"terraform.d/plugins/registry.terraform.io": "../../../vendor/plugins/registry.terraform.io"},
			want: "app/terraform.d/plugins/registry.terraform.io"},
		{name: "a link to a file counts as the file", links: map[string]string{"terraform.d/plugins/x/terraform-provider-x": "../../../../vendor/plugins/bin"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			for _, d := range []string{"app/terraform.d/plugins/x", "vendor/plugins/registry.terraform.io"} {
				if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(filepath.Join(root, "vendor/plugins/bin"), nil, 0o755); err != nil {
				t.Fatal(err)
			}
			for link, target := range tc.links {
				full := filepath.Join(root, "app", link)
				os.RemoveAll(full)
				if err := os.Symlink(target, full); err != nil {
					t.Fatal(err)
				}
			}
			got := LinkedPlugins(root, Project{Name: "app", Dir: "app"})
			if tc.want == "" && got != "" || tc.want != "" && !strings.HasPrefix(got, tc.want+" is a symbolic link to a directory in terraform's implied provider mirror") {
				t.Errorf("got %q, want it to name %q", got, tc.want)
			}
		})
	}
}

func TestDataDirsOnDisk(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"envs/.terraform", "other/app", "envs/db"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("/nowhere", filepath.Join(root, "other", "app", ".terraform")); err != nil {
		t.Fatal(err)
	}
	for dir, want := range map[string]bool{"envs/db": true, "envs": true, "other/app": true, "other": false, ".": false, "missing/dir": false} {
		if got := DataDirsOnDisk(root, dir); got != want {
			t.Errorf("%s: %v, want %v", dir, got, want)
		}
	}
}
