package project

import (
	"slices"
	"strings"
	"testing"
)

func names(ps []Project) []string {
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		out = append(out, p.Name)
	}
	return out
}

// changedNames are the names of the projects ChangedWhy selects.
func changedNames(ps []Project, files []string) []string {
	out := []string{}
	for _, t := range ChangedWhy(ps, files) {
		out = append(out, t.Project.Name)
	}
	return out
}

// changedFixture is a monorepo: two environments sharing modules (tags is used through
// app and network), a nested project, a root project, custom globs and an opt-out project.
func changedFixture() []Project {
	def := DefaultWhenModified
	return []Project{
		{Name: ".", Dir: ".", WhenModified: def},
		{Name: "envs/prod", Dir: "envs/prod", WhenModified: def},
		{Name: "envs/prod/network", Dir: "envs/prod/network", WhenModified: def, Modules: []string{"modules/network", "modules/network/sub", "modules/tags"}},
		{Name: "envs/prod/app", Dir: "envs/prod/app", WhenModified: def, Modules: []string{"modules/app", "modules/tags"}},
		{Name: "envs/dev/app", Dir: "envs/dev/app", WhenModified: def, Modules: []string{"modules/app", "modules/tags"}},
		{
			Name:         "dns",
			Dir:          "envs/prod/dns",
			WhenModified: []string{"*.tf", "zones/*.zone", "../../../modules/network/**"},
			VarFiles:     []string{"dns.tfvars", "../../common.tfvars"},
		},
		{Name: "manual", Dir: "envs/manual", WhenModified: []string{}, Modules: []string{"modules/tags"}},
		{Name: "weird", Dir: "envs/[w]eird", WhenModified: def},
	}
}

func TestChanged(t *testing.T) {
	tests := []struct {
		name  string
		files []string
		want  []string
	}{
		{name: "no files", files: nil, want: nil},
		{name: "a project's own .tf", files: []string{"envs/prod/app/main.tf"}, want: []string{"envs/prod/app"}},
		{
			name: "default globs",
			files: []string{
				"envs/dev/app/x.tf.json",
				"envs/prod/app/prod.tfvars",
				"envs/prod/network/.terraform.lock.hcl",
				"envs/prod/main.tfvars.json",
			},
			want: []string{"envs/prod", "envs/prod/network", "envs/prod/app", "envs/dev/app"},
		},
		{name: "OpenTofu files", files: []string{"envs/prod/app/versions.tofu", "envs/dev/app/main.tofu.json"}, want: []string{"envs/prod/app", "envs/dev/app"}},
		{name: "backend config file", files: []string{"envs/prod/s3.tfbackend"}, want: []string{"envs/prod"}},
		{name: "README.md in a project dir does not count", files: []string{"envs/prod/app/README.md", "README.md"}, want: nil},
		{
			name:  "files near but not Terraform inputs",
			files: []string{".tfgate.yaml", ".tflint.hcl", "envs/prod/terraform.tfstate", "envs/prod/app/main.tftest.hcl", "envs/prod/app/x.tfplan"},
			want:  nil,
		},
		{name: "subdirectory of a project is not the project", files: []string{"envs/prod/app/templates/user_data.sh"}, want: nil},
		{name: "nested project: child change only", files: []string{"envs/prod/network/main.tf"}, want: []string{"envs/prod/network"}},
		{name: "nested project: parent change only", files: []string{"envs/prod/variables.tf"}, want: []string{"envs/prod"}},
		{name: "root project", files: []string{"main.tf"}, want: []string{"."}},
		{name: "module change plans every user", files: []string{"modules/app/main.tf"}, want: []string{"envs/prod/app", "envs/dev/app"}},
		{
			name:  "module used through another module plans every transitive user",
			files: []string{"modules/tags/outputs.tf"},
			want:  []string{"envs/prod/network", "envs/prod/app", "envs/dev/app"},
		},
		{
			name:  "any file inside a module counts",
			files: []string{"modules/network/sub/templates/rules.json.tpl"},
			want:  []string{"envs/prod/network", "dns"},
		},
		{
			name:  "a module's gitlink (a submodule bumped) plans every user",
			files: []string{"modules/tags"},
			want:  []string{"envs/prod/network", "envs/prod/app", "envs/dev/app"},
		},
		{name: "sibling directory sharing a module's name prefix", files: []string{"modules/application/main.tf", "modules/tagsx/a.tf"}, want: nil},
		{name: "deleted file", files: []string{"envs/dev/app/removed.tf"}, want: []string{"envs/dev/app"}},
		{
			name:  "renamed project dir: old and new path",
			files: []string{"envs/stage/app/main.tf", "envs/dev/app/main.tf"},
			want:  []string{"envs/dev/app"},
		},
		{
			name:  "renamed module dir: old and new path",
			files: []string{"modules/net-old/main.tf", "modules/network/main.tf"},
			want:  []string{"envs/prod/network", "dns"},
		},
		{name: "outside any project", files: []string{"docs/architecture.md", "scripts/bootstrap.sh", ".github/workflows/tf.yml"}, want: nil},
		{name: "custom glob in a subdirectory", files: []string{"envs/prod/dns/zones/example.com.zone"}, want: []string{"dns"}},
		{name: "custom globs replace the defaults", files: []string{"envs/prod/dns/records.tf.json"}, want: nil},
		{name: "custom glob with ../ (a module's documentation is no input of its users)", files: []string{"modules/network/README.md"}, want: []string{"dns"}},
		{name: "var file inside the project", files: []string{"envs/prod/dns/dns.tfvars"}, want: []string{"dns"}},
		{name: "var file outside the project", files: []string{"envs/common.tfvars"}, want: []string{"dns"}},
		{name: "empty when_modified is never planned on change", files: []string{"envs/manual/main.tf"}, want: nil},
		{name: "glob characters in a dir are literal", files: []string{"envs/[w]eird/main.tf"}, want: []string{"weird"}},
		{name: "glob characters in a dir match nothing else", files: []string{"envs/weird/main.tf"}, want: nil},
		{name: "unclean paths", files: []string{"./envs/prod/app//main.tf"}, want: []string{"envs/prod/app"}},
		{
			name:  "result keeps project order",
			files: []string{"modules/app/main.tf", "envs/prod/network/main.tf", "main.tf"},
			want:  []string{".", "envs/prod/network", "envs/prod/app", "envs/dev/app"},
		},
	}
	projects := changedFixture()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := changedNames(projects, tt.files)
			if !slices.Equal(got, tt.want) {
				t.Errorf("ChangedWhy(%q) = %q, want %q", tt.files, got, tt.want)
			}
		})
	}
}

func TestJoinGlob(t *testing.T) {
	tests := []struct{ dir, glob, want, prefix string }{
		{dir: ".", glob: "*.tf", want: "*.tf", prefix: ""},
		{dir: "envs/prod/network", glob: "*.tf", want: "envs/prod/network/*.tf", prefix: "envs/prod/network/"},
		{dir: "envs/prod/network", glob: "../../../modules/network/**", want: "modules/network/**", prefix: "modules/network/"},
		{dir: "envs/prod", glob: "../../../outside/*.tf", want: "../outside/*.tf", prefix: "../outside/"},
		{dir: "a/{b}", glob: "*.tf", want: `a/\{b\}/*.tf`, prefix: "a/"},
		{dir: "a", glob: "exact.tf", want: "a/exact.tf", prefix: "a/exact.tf"},
	}
	for _, tt := range tests {
		got := joinGlob(tt.dir, tt.glob)
		if got != tt.want {
			t.Errorf("joinGlob(%q, %q) = %q, want %q", tt.dir, tt.glob, got, tt.want)
		}
		if p := literalPrefix(got); p != tt.prefix {
			t.Errorf("literalPrefix(%q) = %q, want %q", got, p, tt.prefix)
		}
	}
}

func TestSelect(t *testing.T) {
	projects := []Project{
		{Name: "network-prod", Dir: "envs/prod/network"},
		{Name: "app-prod", Dir: "envs/prod/app", Workspace: "default"},
		{Name: "app-prod-eu", Dir: "envs/prod/app", Workspace: "eu"},
		{Name: "envs/dev/app", Dir: "envs/dev/app"},
	}
	tests := []struct {
		name    string
		args    []string
		want    []string
		wantErr []string
	}{
		{name: "nothing", args: nil, want: []string{}},
		{name: "by name, project order", args: []string{"envs/dev/app", "network-prod"}, want: []string{"network-prod", "envs/dev/app"}},
		{name: "by dir selects every workspace", args: []string{"envs/prod/app"}, want: []string{"app-prod", "app-prod-eu"}},
		{name: "dir spelled loosely", args: []string{"./envs/prod/network/"}, want: []string{"network-prod"}},
		{name: "duplicates once", args: []string{"app-prod", "envs/prod/app", "app-prod"}, want: []string{"app-prod", "app-prod-eu"}},
		{
			name:    "unknown names are all listed with the available ones",
			args:    []string{"network-prod", "nope", "envs/prod"},
			wantErr: []string{`unknown projects "nope", "envs/prod"`, "available: network-prod, app-prod, app-prod-eu, envs/dev/app"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Select(projects, tt.args)
			if tt.wantErr != nil {
				if err == nil {
					t.Fatalf("Select(%q) = %q, want error", tt.args, names(got))
				}
				for _, w := range tt.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not contain %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(names(got), tt.want) {
				t.Errorf("Select(%q) = %q, want %q", tt.args, names(got), tt.want)
			}
		})
	}
}

func TestSelectManyProjectsShortensTheList(t *testing.T) {
	var projects []Project
	for _, n := range strings.Fields("a b c d e f g h i j k l m n o p q r s t u v w x y z") {
		projects = append(projects, Project{Name: n, Dir: n})
	}
	_, err := Select(projects, []string{"zz"})
	if err == nil || !strings.Contains(err.Error(), "… and 6 more (tfgate projects lists them all)") || strings.Contains(err.Error(), ", u,") {
		t.Errorf("error = %v, want the first 20 names and a count of the rest", err)
	}
}

// TestChangedProjectWithProblems checks that a project whose module links are uncertain is
// planned on any Terraform change, so a change to a module it might use is not missed.
func TestChangedProjectWithProblems(t *testing.T) {
	def := DefaultWhenModified
	projects := []Project{
		{Name: "ok", Dir: "envs/ok", WhenModified: def, Modules: []string{"modules/net"}},
		{Name: "broken", Dir: "envs/broken", WhenModified: def, Modules: []string{"modules/net"}, Problems: []string{"envs/broken/main.tf:3: syntax error"}},
		{Name: "broken-manual", Dir: "envs/manual", WhenModified: []string{}, Problems: []string{"envs/manual/main.tf:1: syntax error"}},
	}
	tests := []struct {
		name  string
		files []string
		want  []string
	}{
		{name: "no files", files: nil, want: nil},
		{name: "its own file", files: []string{"envs/broken/main.tf"}, want: []string{"broken"}},
		{name: "a module it does not list", files: []string{"modules/other/main.tf"}, want: []string{"broken"}},
		{name: "a JSON module file", files: []string{"modules/other/main.tf.json"}, want: []string{"broken"}},
		{name: "another project's file", files: []string{"envs/ok/main.tf"}, want: []string{"ok", "broken"}},
		{name: "a module it lists, non-Terraform file", files: []string{"modules/net/templates/a.tpl"}, want: []string{"ok", "broken"}},
		{name: "a module it might use, non-Terraform file", files: []string{"modules/other/templates/a.tpl"}, want: nil},
		{name: "non-Terraform files elsewhere", files: []string{"README.md", "envs/ok/README.md", "modules/other/x.tfvars"}, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := changedNames(projects, tt.files)
			if !slices.Equal(got, tt.want) {
				t.Errorf("ChangedWhy(%q) = %q, want %q", tt.files, got, tt.want)
			}
		})
	}
}

func TestChangedWhy(t *testing.T) {
	projects := []Project{
		{Name: "app", Dir: "envs/app", WhenModified: DefaultWhenModified, Modules: []string{"modules/m"}},
		{Name: "net", Dir: "envs/net", WhenModified: DefaultWhenModified, VarFiles: []string{"../common.tfvars"}},
		{Name: "quiet", Dir: "envs/quiet", WhenModified: DefaultWhenModified},
	}
	got := ChangedWhy(projects, []string{"modules/m/templates/user_data.sh", "envs/common.tfvars", "README.md"})
	var lines []string
	for _, t := range got {
		lines = append(lines, t.Project.Name+" <- "+t.File)
	}
	want := "app <- modules/m/templates/user_data.sh; net <- envs/common.tfvars"
	if strings.Join(lines, "; ") != want {
		t.Fatalf("ChangedWhy = %q, want %q", strings.Join(lines, "; "), want)
	}
}
