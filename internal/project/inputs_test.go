package project

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func contextWithCancel(t *testing.T) (context.Context, context.CancelFunc) {
	return context.WithCancel(t.Context())
}

func TestInputFiles(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"envs/app/main.tf":                                   module("app", "../../modules/app"),
		"envs/app/prod.tfvars":                               "",
		"envs/app/README.md":                                 "",
		"envs/app/main.tftest.hcl":                           "",
		"envs/app/versions.tofu":                             "",
		"envs/app/.terraform.lock.hcl":                       "",
		"envs/app/.terraform/providers/p":                    "",
		"envs/app/.envrc":                                    "",
		"envs/app/terraform.tfstate":                         "",
		"envs/app/terraform.tfstate.backup":                  "",
		"envs/app/terraform.tfstate.d/dev/terraform.tfstate": "",
		"envs/app/app.tfplan":                                "",
		"envs/app/tfplan":                                    "",
		"envs/app/templates/user_data.sh":                    "",
		"envs/app/templates/deep/motd.txt":                   "",
		"envs/app/nested/main.tf":                            "# another project",
		"envs/app/nested/notes.txt":                          "",
		"envs/common.tfvars":                                 "",
		"envs/unrelated.tf":                                  "",
		"modules/app/main.tf":                                module("sub", "./sub"),
		"modules/app/files/policy.json":                      "",
		"modules/app/sub/main.tf":                            "",
		"modules/app/sub/x.tpl":                              "",
		"modules/other/main.tf":                              "",
	})
	if err := os.Symlink("../common.tfvars", filepath.Join(root, "envs/app/common.auto.tfvars")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("templates", filepath.Join(root, "envs/app/linked-dir")); err != nil {
		t.Fatal(err)
	}
	p := Project{
		Name:     "app",
		Dir:      "envs/app",
		VarFiles: []string{"prod.tfvars", "../common.tfvars"},
		Modules:  []string{"modules/app", "modules/app/sub"},
	}
	got, err := InputFiles(t.Context(), root, p)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"envs/app/.terraform.lock.hcl",
		"envs/app/common.auto.tfvars",
		"envs/app/linked-dir/deep/motd.txt", // a link to a directory counts as that directory
		"envs/app/linked-dir/user_data.sh",
		"envs/app/main.tf",
		"envs/app/prod.tfvars",
		"envs/app/templates/deep/motd.txt",
		"envs/app/templates/user_data.sh",
		"envs/app/versions.tofu",
		"envs/common.tfvars",
		"modules/app/files/policy.json",
		"modules/app/main.tf",
		"modules/app/sub/main.tf",
		"modules/app/sub/x.tpl",
	}
	if !slices.Equal(got, want) {
		t.Errorf("InputFiles =\n  %q\nwant\n  %q", got, want)
	}

	// Discover and InputFiles agree on the modules of a project.
	ps, err := Discover(t.Context(), root, nil)
	if err != nil {
		t.Fatal(err)
	}
	sel, err := Select(ps, []string{"envs/app"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sel[0].Modules, p.Modules) {
		t.Errorf("Discover modules = %q, want %q", sel[0].Modules, p.Modules)
	}
}

func TestInputFilesErrors(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"envs/app/main.tf": ""})
	tests := []struct {
		name    string
		p       Project
		wantErr string
	}{
		{name: "missing dir", p: Project{Name: "gone", Dir: "envs/gone"}, wantErr: "project gone: directory envs/gone does not exist"},
		{name: "missing module dir", p: Project{Name: "app", Dir: "envs/app", Modules: []string{"modules/x"}}, wantErr: "project app: directory modules/x does not exist"},
		{
			name:    "missing var file",
			p:       Project{Name: "app", Dir: "envs/app", VarFiles: []string{"prod.tfvars"}},
			wantErr: "project app: var file prod.tfvars (envs/app/prod.tfvars) not found",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := InputFiles(t.Context(), root, tt.p)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error = %v, want %q", err, tt.wantErr)
			}
		})
	}
}
