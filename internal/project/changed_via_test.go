package project

import (
	"slices"
	"testing"
)

func TestChangedVia(t *testing.T) {
	ps := changedFixture()
	files := []string{
		"envs/prod/app/main.tf",
		"modules/tags/tags.tf",
		"modules/network/main.tf",
		"envs/prod/dns/zones/a.zone",
		"README.md",
	}
	got := ChangedVia(ps, files)
	want := map[string][]Via{
		"envs/prod/network": {{"modules/network/main.tf", "modules/network"}, {"modules/tags/tags.tf", "modules/tags"}},
		"envs/prod/app":     {{"envs/prod/app/main.tf", ""}, {"modules/tags/tags.tf", "modules/tags"}},
		"envs/dev/app":      {{"modules/tags/tags.tf", "modules/tags"}},
		// dns reaches the network module only through a glob: no module of its own.
		"dns": {{"envs/prod/dns/zones/a.zone", ""}, {"modules/network/main.tf", ""}},
	}
	for i, p := range ps {
		if !slices.Equal(got[i], want[p.Name]) {
			t.Errorf("%s: got %v, want %v", p.Name, got[i], want[p.Name])
		}
	}
}

// TestChangedViaIsChangedWhy holds the graph to the selection: a project has files exactly
// when ChangedWhy selects it, and the file ChangedWhy names is among them.
func TestChangedViaIsChangedWhy(t *testing.T) {
	ps := changedFixture()
	ps = append(ps, Project{Name: "broken", Dir: "envs/broken", WhenModified: DefaultWhenModified, Problems: []string{"main.tf:1: does not parse"}})
	for _, files := range [][]string{
		nil,
		{"envs/prod/app/main.tf"},
		{"modules/tags/x.tf", "envs/common.tfvars"},
		{"other/x.tf"},
		{"envs/[w]eird/main.tf", "envs/prod/network/.terraform.lock.hcl", "modules/network/sub/a.tf"},
		{"envs/manual/main.tf", "docs/readme.md"},
	} {
		why := map[string]string{}
		for _, tc := range ChangedWhy(ps, files) {
			why[tc.Project.Name] = tc.File
		}
		for i, vias := range ChangedVia(ps, files) {
			name := ps[i].Name
			w, selected := why[name]
			if selected != (len(vias) > 0) {
				t.Errorf("%v: %s selected %v, but has %d files in the graph", files, name, selected, len(vias))
			}
			if selected && !slices.ContainsFunc(vias, func(v Via) bool { return v.File == w }) {
				t.Errorf("%v: %s: graph %v misses ChangedWhy's %s", files, name, vias, w)
			}
		}
	}
}
