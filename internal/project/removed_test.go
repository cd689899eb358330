package project

import (
	"slices"
	"testing"
)

func TestRemovedDirs(t *testing.T) {
	// Directories that still hold *.tf files after the change.
	remaining := map[string]bool{"envs/prod/app": true, "modules/net": true, ".": true}
	tests := []struct {
		name    string
		deleted []string
		want    []string
	}{
		{name: "nothing deleted", deleted: nil, want: nil},
		{name: "one file of a dir that keeps others", deleted: []string{"envs/prod/app/old.tf"}, want: nil},
		{name: "every file of a project", deleted: []string{"envs/prod/db/main.tf", "envs/prod/db/variables.tf"}, want: []string{"envs/prod/db"}},
		{name: "JSON configuration", deleted: []string{"envs/json/main.tf.json"}, want: []string{"envs/json"}},
		{
			name:    "several dirs, sorted and each once",
			deleted: []string{"modules/old/main.tf", "envs/gone/b.tf", "modules/old/outputs.tf", "envs/gone/a.tf", "modules/net/x.tf"},
			want:    []string{"envs/gone", "modules/old"},
		},
		{
			name:    "non-Terraform files do not remove a dir",
			deleted: []string{"envs/docs/README.md", "envs/vars/prod.tfvars", "envs/state/terraform.tfstate", "envs/lock/.terraform.lock.hcl"},
			want:    nil,
		},
		{name: "the root module", deleted: []string{"main.tf"}, want: nil},
		{name: "unclean paths", deleted: []string{"./envs/x//main.tf"}, want: []string{"envs/x"}},
		{name: "outside the repository", deleted: []string{"../other/main.tf", "/abs/main.tf"}, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := map[string]int{}
			got := RemovedDirs(tt.deleted, func(dir string) bool {
				calls[dir]++
				return remaining[dir]
			})
			if !slices.Equal(got, tt.want) {
				t.Errorf("RemovedDirs(%q) = %q, want %q", tt.deleted, got, tt.want)
			}
			for dir, n := range calls {
				if n > 1 {
					t.Errorf("exists(%q) called %d times, want once", dir, n)
				}
			}
		})
	}

	t.Run("root module removed", func(t *testing.T) {
		got := RemovedDirs([]string{"main.tf", "envs/a/main.tf"}, func(string) bool { return false })
		if want := []string{".", "envs/a"}; !slices.Equal(got, want) {
			t.Errorf("RemovedDirs = %q, want %q", got, want)
		}
	})
}
