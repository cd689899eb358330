package config

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestRulesFor(t *testing.T) {
	const file = `version: 1
approval: {min_approvals: 2, destroy_min_approvals: 3}
policies: {owners: [alice, "@org/platform"]}
projects:
  - name: net
    dir: envs/prod/network
    approval: {min_approvals: 1}
  - name: core
    dir: envs/prod/core
    approval: {min_approvals: 4, destroy_min_approvals: 5}
  - name: core-staging
    dir: envs/prod/core
    workspace: staging
    mode: observe
  - name: dev
    dir: envs/dev
    mode: observe
`
	cfg, err := Parse([]byte(file), ".tfgate.yaml", "")
	if err != nil {
		t.Fatal(err)
	}
	owners := []string{"alice", "org/platform"}
	rules := func(min, destroy int, mode Mode) Rules {
		return Rules{MinApprovals: min, DestroyMinApprovals: destroy, Owners: owners, Mode: mode}
	}
	tests := []struct {
		name    string
		p       Project
		aliases []string
		want    Rules
	}{
		{"unknown: the top level", Project{Name: "other", Dir: "envs/other", Workspace: "default"}, nil, rules(2, 3, ModeManaged)},
		{"by name, never below the top level", Project{Name: "net", Dir: "moved", Workspace: "default"}, nil, rules(2, 3, ModeManaged)},
		{"by name", Project{Name: "core", Dir: "moved", Workspace: "default"}, nil, rules(4, 5, ModeManaged)},
		{"by directory: a renamed project keeps its rules", Project{Name: "renamed", Dir: "envs/prod/core", Workspace: "default"}, nil, rules(4, 5, ModeManaged)},
		{"another workspace of the directory is another project", Project{Name: "core-staging", Dir: "envs/prod/core", Workspace: "staging"}, nil, rules(2, 3, ModeObserve)},
		{"by state address: renamed and moved", Project{Name: "x", Dir: "y", Workspace: "default"}, []string{"core\x00default"}, rules(4, 5, ModeManaged)},
		{"an alias in another workspace", Project{Name: "x", Dir: "y", Workspace: "default"}, []string{"core-staging\x00staging"}, rules(2, 3, ModeObserve)},
		{"several match: the strictest", Project{Name: "net", Dir: "envs/prod/core", Workspace: "default"}, nil, rules(4, 5, ModeManaged)},
		{"observe in the base", Project{Name: "dev", Dir: "envs/dev", Workspace: "default", Mode: ModeManaged}, nil, rules(2, 3, ModeObserve)},
		{"observe in the change", Project{Name: "net", Dir: "envs/prod/network", Workspace: "default", Mode: ModeObserve}, nil, rules(2, 3, ModeObserve)},
		{"no directory matches no directory", Project{Name: "gone", Workspace: "default"}, nil, rules(2, 3, ModeManaged)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := cfg.RulesFor(tt.p, tt.aliases...); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("RulesFor = %+v, want %+v", got, tt.want)
			}
		})
	}
	if got, want := cfg.SharedRules(), rules(4, 5, ModeManaged); !reflect.DeepEqual(got, want) {
		t.Errorf("SharedRules = %+v, want %+v", got, want)
	}
	// Without a file: one approval, no owners, managed.
	if got, want := Default().RulesFor(Project{Name: "a", Dir: "a", Workspace: "default"}), (Rules{MinApprovals: 1, DestroyMinApprovals: 1, Mode: ModeManaged}); !reflect.DeepEqual(got, want) {
		t.Errorf("Default().RulesFor = %+v, want %+v", got, want)
	}
}

func TestOwnerRules(t *testing.T) {
	cfg, err := Parse([]byte("version: 1\napproval: {teams: ['@acme/sec'], codeowners: false}\nprojects:\n"+
		"  - {dir: envs/prod, approval: {teams: [acme/platform, ACME/sec, alice]}}\n"+
		"  - {dir: envs/dev, approval: {codeowners: true}}\n"), ".tfgate.yaml", "")
	if err != nil {
		t.Fatal(err)
	}
	prod := cfg.RulesFor(Project{Name: "envs/prod", Dir: "envs/prod", Workspace: "default"})
	if !slices.Equal(prod.Teams, []string{"acme/sec", "acme/platform", "alice"}) || prod.CodeOwners {
		t.Errorf("prod: teams %q, codeowners %v", prod.Teams, prod.CodeOwners)
	}
	dev := cfg.RulesFor(Project{Name: "envs/dev", Dir: "envs/dev", Workspace: "default"})
	if !slices.Equal(dev.Teams, []string{"acme/sec"}) || !dev.CodeOwners {
		t.Errorf("dev: teams %q, codeowners %v", dev.Teams, dev.CodeOwners)
	}
	shared := cfg.SharedRules()
	if !slices.Equal(shared.Teams, []string{"acme/sec", "acme/platform", "alice"}) || !shared.CodeOwners {
		t.Errorf("shared: teams %q, codeowners %v", shared.Teams, shared.CodeOwners)
	}
	if got := cfg.NamedTeams(); !slices.Equal(got, []string{"acme/sec", "acme/platform", "ACME/sec"}) {
		t.Errorf("named teams %q", got)
	}
	if _, err := Parse([]byte("version: 1\napproval: {teams: [a/b/c]}\n"), ".tfgate.yaml", ""); err == nil ||
		!strings.Contains(err.Error(), `approval.teams "a/b/c" is not a GitHub user or "org/team"`) {
		t.Errorf("bad team: %v", err)
	}
}
