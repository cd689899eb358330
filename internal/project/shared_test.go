package project

import (
	"slices"
	"testing"
)

func TestUnowned(t *testing.T) {
	projects := []Project{
		{Name: "app", Dir: "app", WhenModified: DefaultWhenModified, OwnInputs: true, Modules: []string{"modules/net"}, VarFiles: []string{"../shared/common.tfvars"},
			Links: []string{"scripts/linked.sh"}}, // app/hook.sh -> ../scripts/linked.sh
		// when_modified that matches nothing: its files are still its inputs.
		{Name: "quiet", Dir: "quiet", WhenModified: []string{"nothing"}},
		// when_modified reaching outside: those files stay shared (no plan hashes them).
		{Name: "watch", Dir: "watch", WhenModified: []string{"*.tf", "../scripts/*.sh"}, Nested: []string{"watch/sub"}},
	}
	files := []string{
		"app/main.tf", "app/templates/user_data.tpl", "app/.terraform/terraform.tfstate",
		"modules/net/main.tf", "modules/net/README.md", "modules/other/main.tf",
		"modules/net", // its gitlink, were it a submodule: app's
		"shared/common.tfvars", "shared/other.tfvars",
		"quiet/main.tf", "quiet/script.sh",
		"watch/main.tf", "watch/sub/main.tf",
		"scripts/hook.sh", "scripts/hook.sh", "scripts/linked.sh", ".tfgate.yaml", "README.md",
	}
	got := Unowned(projects, files)
	want := []string{".tfgate.yaml", "README.md", "app/.terraform/terraform.tfstate", "modules/net/README.md", "modules/other/main.tf",
		"scripts/hook.sh", "scripts/linked.sh", "shared/other.tfvars", "watch/sub/main.tf"}
	if !slices.Equal(got, want) {
		t.Errorf("Unowned:\n got %q\nwant %q", got, want)
	}
}
