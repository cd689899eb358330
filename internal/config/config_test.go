package config

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/golden"
)

// newRoot builds a small repository for the checks that look at the file system.
func newRoot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for _, dir := range []string{"envs/prod/core", "envs/prod/network", "envs/dev", "modules/network", "policies"} {
		if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := []string{
		"envs/prod/network/prod.tfvars", "envs/common.tfvars", "README.md", "root.tfvars",
		// Project dirs must hold Terraform files.
		"main.tf", "envs/prod/core/main.tf", "envs/prod/network/main.tf", "envs/dev/main.tf.json", "modules/network/main.tf",
	}
	for _, file := range files {
		if err := os.WriteFile(filepath.Join(root, file), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// mergeChain is a ~1 KB file of merge keys whose expansion doubles per level.
func mergeChain(levels int) string {
	var b strings.Builder
	b.WriteString("x0: &a0 {dir: envs/dev}\n")
	for i := 1; i <= levels; i++ {
		fmt.Fprintf(&b, "x%d: &a%d {<<: [*a%d, *a%d]}\n", i, i, i-1, i-1)
	}
	fmt.Fprintf(&b, "projects: [*a%d]\n", levels)
	return b.String()
}

func TestParseErrors(t *testing.T) {
	root := newRoot(t)
	tests := []struct {
		name, yaml, want string
	}{
		// The file as a whole.
		{"syntax", "version: 1\nterraform:\n  binary: [terraform\n", ".tfgate.yaml:3: invalid YAML: did not find expected ',' or ']'"},
		{"tabs", "version: 1\nprojects:\n\t- dir: envs/dev\n", ".tfgate.yaml:3: invalid YAML: found character that cannot start any token; indent with spaces, not tabs"},
		{"unknown anchor", "version: 1\nprojects: *all\n", ".tfgate.yaml:2: invalid YAML: unknown anchor 'all' referenced"},
		{"two documents", "version: 1\n---\nversion: 1\n", `.tfgate.yaml:2: a second YAML document starts here; the file holds one, so remove the "---" line`},
		{"not a mapping", "- version: 1\n", `.tfgate.yaml:1: the file must be a mapping of keys such as "version: 1", got a list`},
		{"empty file", "", `.tfgate.yaml:1: the file is empty; write "version: 1" (and the settings you need), or remove the file to autodetect everything`},
		{"only comments", "# nothing configured yet\n", `.tfgate.yaml:1: the file is empty; write "version: 1" (and the settings you need), or remove the file to autodetect everything`},
		{"empty project list", "version: 1\nprojects: []\n", `.tfgate.yaml:2: projects lists no project; list each one ("- dir: ..."), or remove the key to autodetect projects`},
		{"null project list", "version: 1\nprojects:\n", `.tfgate.yaml:2: projects lists no project; list each one ("- dir: ..."), or remove the key to autodetect projects`},
		{"version missing", "drift: {labels: [drift]}\n", `.tfgate.yaml:1: version is missing; add "version: 1" at the top of the file`},
		{"version empty", "version:\n", `.tfgate.yaml:1: version is empty; write "version: 1"`},
		{"version unsupported", "version: 2\n", ".tfgate.yaml:1: version must be 1, got 2; this tfgate reads configuration version 1"},
		{"version not a number", "version: one\n", `.tfgate.yaml:1: version must be a whole number, got "one"`},

		// Keys.
		{"unknown key with suggestion", "version: 1\nprojetcs: []\n", `.tfgate.yaml:2: unknown key "projetcs" (did you mean "projects"?)`},
		{"misspelt version is reported once", "verison: 1\n", `.tfgate.yaml:1: unknown key "verison" (did you mean "version"?)`},
		{"unknown key without suggestion", "version: 1\nautoplan: true\n", `.tfgate.yaml:2: unknown key "autoplan"; valid keys are version, terraform, policies, approval, apply, projects, autodetect, drift, github, ignore`},
		{"autodetect unknown key", "version: 1\nautodetect:\n  exclude: [a]\n  excludes: [b]\n", `.tfgate.yaml:4: unknown key "excludes" in autodetect (did you mean "exclude"?)`},
		{"autodetect bad glob", "version: 1\nautodetect:\n  include:\n    - \"examples/*\"\n    - \"test/{a,b\"\n", `.tfgate.yaml:5: autodetect.include "test/{a,b" is not a valid glob; check its [ ] and { } pairs`},
		{"autodetect not a list", "version: 1\nautodetect: {exclude: fixtures}\n", `.tfgate.yaml:2: autodetect.exclude must be a list, got "fixtures"; write [fixtures]`},
		{"autodetect outside", "version: 1\nautodetect: {exclude: [\"../x\"]}\n", `.tfgate.yaml:2: autodetect.exclude "../x" is outside the repository`},
		{"autodetect with projects", "version: 1\nautodetect: {exclude: [x]}\nprojects:\n  - dir: envs/dev\n", `.tfgate.yaml:2: autodetect has no effect when projects lists the projects; remove one of the two`},
		{"github identity not a login", "version: 1\ngithub:\n  identity: \"a b\"\n", `.tfgate.yaml:3: github.identity "a b" is not a GitHub login (e.g. "my-app[bot]")`},
		{"freeze not a boolean", "version: 1\napply:\n  freeze: \"until friday\"\n", `.tfgate.yaml:3: apply.freeze must be true or false, got "until friday"`},
		{"apply not a mapping", "version: 1\napply: frozen\n", `.tfgate.yaml:2: apply must be a mapping, got "frozen"`},
		{"apply read_guard", "version: 1\napply: {read_guard: always}\n", `.tfgate.yaml:2: apply.read_guard "always": want auto (the default: terraform runs under the read guard where the kernel has it) or required (apply refuses to run terraform without it)`},
		{"apply unknown key", "version: 1\napply: {frozen: true}\n", `.tfgate.yaml:2: unknown key "frozen" in apply; valid keys are freeze, allow_modes, verify, read_guard`},
		{"verify unknown", "version: 1\napply: {verify: always}\n", `.tfgate.yaml:2: apply.verify "always": want plan-file (the default: the plan file is checked against the merged code) or replan (the merge is also planned again and must plan the same changes)`},
		{"allow_modes unknown mode", "version: 1\napply:\n  allow_modes: [destroy, import]\n", `.tfgate.yaml:3: apply.allow_modes "import" is not a kind of plan; valid are destroy, refresh-only and targeted`},
		{"allow_modes not a list", "version: 1\napply: {allow_modes: destroy}\n", `.tfgate.yaml:2: apply.allow_modes must be a list, got "destroy"; write [destroy]`},
		{"github fork flag not a boolean", "version: 1\ngithub: {allow_pull_request_target_forks: sometimes}\n", `.tfgate.yaml:2: github.allow_pull_request_target_forks must be true or false, got "sometimes"`},
		{"unknown nested key", "version: 1\nterraform:\n  bin: tofu\n", `.tfgate.yaml:3: unknown key "bin" in terraform (did you mean "binary"?)`},
		{"other spelling of a key", "version: 1\nprojects:\n  - dir: envs/dev\n    dependsOn: []\n", `.tfgate.yaml:4: unknown key "dependsOn" in project "envs/dev" (did you mean "depends_on"?)`},
		{"key set twice", "version: 1\napproval:\n  min_approvals: 1\n  min_approvals: 2\n", `.tfgate.yaml:4: key "min_approvals" in approval is set twice (first on line 3); keep one`},
		{"non-scalar key", "version: 1\n? [a]\n: b\n", ".tfgate.yaml:2: keys must be plain words, got a list"},
		{"bad merge", "version: 1\nterraform:\n  <<: [1]\n", ".tfgate.yaml:3: << can only merge a mapping or a list of mappings, got 1"},
		{"merge of its own anchor", "version: 1\nprojects:\n  - &a {dir: envs/dev, <<: *a}\n", ".tfgate.yaml:3: *a refers to &a (line 3), which contains it: a recursive alias or merge; remove it"},
		{"alias inside its anchor", "version: 1\nterraform: &t\n  binary: *t\n", ".tfgate.yaml:3: *t refers to &t (line 2), which contains it: a recursive alias or merge; remove it"},
		{"merge chain", "version: 1\n" + mergeChain(40), ".tfgate.yaml:15: aliases expand the file to more than 100000 values (at *a12); use fewer or smaller anchors"},

		// Types.
		{"section not a mapping", "version: 1\nterraform: tofu\n", `.tfgate.yaml:2: terraform must be a mapping, got "tofu"`},
		{"not a whole number", "version: 1\napproval:\n  min_approvals: two\n", `.tfgate.yaml:3: approval.min_approvals must be a whole number, got "two"`},
		{"fraction", "version: 1\napproval:\n  min_approvals: 1.5\n", ".tfgate.yaml:3: approval.min_approvals must be a whole number, got 1.5"},
		{"negative", "version: 1\napproval:\n  destroy_min_approvals: -1\n", ".tfgate.yaml:3: approval.destroy_min_approvals must be 0 or more, got -1"},
		{"not a bool", "version: 1\nterraform:\n  install: sometimes\n", `.tfgate.yaml:3: terraform.install must be true or false, got "sometimes"`},
		{"plugin cache path", "version: 1\nterraform:\n  plugin_cache: /var/cache/tf\n", `.tfgate.yaml:3: terraform.plugin_cache must be true or false, got "/var/cache/tf"; to choose the directory, set TF_PLUGIN_CACHE_DIR where tfgate runs`},
		{"plugin cache list", "version: 1\nterraform:\n  plugin_cache: [a]\n", `.tfgate.yaml:3: terraform.plugin_cache must be true or false, got a list`},
		{"not a string", "version: 1\nterraform:\n  binary: [tofu]\n", ".tfgate.yaml:3: terraform.binary must be a string, got a list"},
		{"string for a list", "version: 1\ndrift:\n  labels: drift\n", `.tfgate.yaml:3: drift.labels must be a list, got "drift"; write [drift]`},
		{"mapping for a list", "version: 1\ndrift:\n  labels: {a: b}\n", ".tfgate.yaml:3: drift.labels must be a list, got a mapping"},
		{"list entry not a string", "version: 1\ndrift:\n  labels: [[drift]]\n", ".tfgate.yaml:3: drift.labels entries must be strings, got a list"},
		{"empty list entry", "version: 1\ndrift:\n  labels: [drift, \"\"]\n", ".tfgate.yaml:3: drift.labels has an empty entry; remove it"},

		// terraform, policies, approval.
		{"binary", "version: 1\nterraform:\n  binary: terrafrom\n", `.tfgate.yaml:3: terraform.binary must be "terraform" or "tofu", got "terrafrom"`},
		{"terraform version", "version: 1\nterraform:\n  version: \"~> one\"\n", `.tfgate.yaml:3: terraform.version "~> one" is not a version or constraint; write e.g. "~> 1.5" or "1.5.7"`},
		{"policy path missing", "version: 1\npolicies:\n  paths: [policy]\n", `.tfgate.yaml:3: policies.paths "policy" does not exist in the repository (did you mean "policies"?)`},
		{"policy path absolute", "version: 1\npolicies:\n  paths: [/etc/tfgate]\n", `.tfgate.yaml:3: policies.paths "/etc/tfgate" must be relative to the repository root`},
		{"policy path outside", "version: 1\npolicies:\n  paths: [../policies]\n", `.tfgate.yaml:3: policies.paths "../policies" is outside the repository`},
		{"owner", "version: 1\npolicies:\n  owners: [\"platform team\"]\n", `.tfgate.yaml:3: policies.owners "platform team" is not a GitHub user or "org/team"`},
		{"destroy below min", "version: 1\napproval:\n  min_approvals: 2\n  destroy_min_approvals: 1\n", ".tfgate.yaml:4: approval.destroy_min_approvals (1) must be at least min_approvals (2); a destroy needs at least as many approvals as any change"},

		// Projects.
		{"projects not a list", "version: 1\nprojects:\n  dir: envs/dev\n", `.tfgate.yaml:3: projects must be a list, got a mapping; start each project with "- dir: ..."`},
		{"project as a string", "version: 1\nprojects:\n  - envs/dev\n", `.tfgate.yaml:3: each projects entry must be a mapping; write "- dir: envs/dev"`},
		{"project as a list", "version: 1\nprojects:\n  - [envs/dev]\n", ".tfgate.yaml:3: each projects entry must be a mapping with at least dir, got a list"},
		{"dir required", "version: 1\nprojects:\n  - name: web\n", `.tfgate.yaml:3: project "web": dir is required; add "dir: path/to/project" (relative to the repository root)`},
		{"dir required, unnamed", "version: 1\nprojects:\n  - dir: envs/dev\n  - workspace: prod\n", `.tfgate.yaml:4: project #2: dir is required; add "dir: path/to/project" (relative to the repository root)`},
		{"dir missing", "version: 1\nprojects:\n  - dir: envs/prod/netwrok\n", `.tfgate.yaml:3: project "envs/prod/netwrok": dir "envs/prod/netwrok" does not exist in the repository (did you mean "envs/prod/network"?)`},
		{"dir empty", "version: 1\nprojects:\n  - name: web\n    dir: \"\"\n", `.tfgate.yaml:4: project "web": dir is required and must not be empty; set it to the project's directory relative to the repository root ("." for the root itself)`},
		{"dir empty, unnamed", "version: 1\nprojects:\n  - dir:\n", `.tfgate.yaml:3: project #1: dir is required and must not be empty; set it to the project's directory relative to the repository root ("." for the root itself)`},
		{"dir without Terraform files", "version: 1\nprojects:\n  - dir: policies\n", `.tfgate.yaml:3: project "policies": dir "policies" holds no *.tf files; point dir at a Terraform root module`},
		{"dir without Terraform files, one subdirectory has some", "version: 1\nprojects:\n  - dir: ./modules/\n", `.tfgate.yaml:3: project "./modules/": dir "./modules/" holds no *.tf files; point dir at a Terraform root module (did you mean "modules/network"?)`},
		{"dir without Terraform files, subdirectories have some", "version: 1\nprojects:\n  - dir: envs/prod\n", `.tfgate.yaml:3: project "envs/prod": dir "envs/prod" holds no *.tf files; point dir at a Terraform root module (its subdirectories "envs/prod/core", "envs/prod/network" do; list each as a project)`},
		{"dir is a file", "version: 1\nprojects:\n  - name: readme\n    dir: README.md\n", `.tfgate.yaml:4: project "readme": dir "README.md" is not a directory`},
		{"dir escapes", "version: 1\nprojects:\n  - name: up\n    dir: envs/../../x\n", `.tfgate.yaml:4: project "up": dir "envs/../../x" is outside the repository`},
		{"dir absolute", "version: 1\nprojects:\n  - name: abs\n    dir: /envs/dev\n", `.tfgate.yaml:4: project "abs": dir "/envs/dev" must be relative to the repository root`},
		{"dir backslashes", "version: 1\nprojects:\n  - name: win\n    dir: envs\\dev\n", `.tfgate.yaml:4: project "win": dir "envs\\dev" must use forward slashes: envs/dev`},
		{"name empty", "version: 1\nprojects:\n  - name: \"\"\n    dir: envs/dev\n", `.tfgate.yaml:3: project "envs/dev": name must not be empty; remove it to name the project after its dir`},
		{"name with spaces", "version: 1\nprojects:\n  - name: dev env\n    dir: envs/dev\n", `.tfgate.yaml:3: project name "dev env" must not contain spaces`},
		{"name like a flag", "version: 1\nprojects:\n  - name: -dev\n    dir: envs/dev\n", `.tfgate.yaml:3: project name "-dev" must not start with "-"`},
		{"duplicate name", "version: 1\nprojects:\n  - name: net\n    dir: envs/prod/network\n  - name: net\n    dir: envs/dev\n", `.tfgate.yaml:5: project name "net" is already used on line 3; names must be unique`},
		{"duplicate name from dir", "version: 1\nprojects:\n  - dir: envs/dev\n  - dir: envs/dev\n    workspace: staging\n", `.tfgate.yaml:4: project name "envs/dev" (from its dir) is already used on line 3; give the projects distinct names with name:`},
		{"duplicate dir and workspace", "version: 1\nprojects:\n  - name: a\n    dir: envs/dev\n  - name: b\n    dir: ./envs/dev/\n    workspace: default\n", `.tfgate.yaml:5: project "b": dir "envs/dev" with workspace "default" is already project "a" on line 3; list each dir and workspace once`},
		{"workspace invalid", "version: 1\nprojects:\n  - dir: envs/dev\n    workspace: us/east\n", `.tfgate.yaml:4: project "envs/dev": workspace "us/east" is not a valid Terraform workspace name; use URL-safe characters and no "/"`},
		{"workspace empty", "version: 1\nprojects:\n  - dir: envs/dev\n    workspace: \"\"\n", `.tfgate.yaml:4: project "envs/dev": workspace must not be empty; remove it to use "default"`},
		{"mode", "version: 1\nprojects:\n  - dir: envs/dev\n    mode: readonly\n", `.tfgate.yaml:4: project "envs/dev": mode must be "managed" or "observe", got "readonly"`},
		{"drift not a bool", "version: 1\nprojects:\n  - dir: envs/dev\n    drift: nightly\n", `.tfgate.yaml:4: project "envs/dev": drift must be true or false, got "nightly"`},
		{"drift label too long", "version: 1\ndrift:\n  labels:\n    - drift\n    - " + strings.Repeat("x", 51) + "\n", `.tfgate.yaml:5: drift.labels "` + strings.Repeat("x", 51) + `" is 51 characters long; GitHub allows at most 50 in a label name`},
		{"var file missing", "version: 1\nprojects:\n  - dir: envs/prod/network\n    var_files:\n      - prod.tfvars\n      - dev.tfvars\n", `.tfgate.yaml:6: project "envs/prod/network": var_files "dev.tfvars" does not exist in envs/prod/network`},
		{"var file missing at root", "version: 1\nprojects:\n  - dir: .\n    var_files: [prod.tfvars]\n", `.tfgate.yaml:4: project ".": var_files "prod.tfvars" does not exist in the repository root`},
		{"var file is a dir", "version: 1\nprojects:\n  - dir: .\n    var_files: [envs]\n", `.tfgate.yaml:4: project ".": var_files "envs" is a directory, not a file`},
		{"var file outside", "version: 1\nprojects:\n  - dir: envs/dev\n    var_files: [../../../secrets.tfvars]\n", `.tfgate.yaml:4: project "envs/dev": var_files "../../../secrets.tfvars" is outside the repository`},
		{"var file absolute", "version: 1\nprojects:\n  - dir: envs/dev\n    var_files: [/etc/prod.tfvars]\n", `.tfgate.yaml:4: project "envs/dev": var_files "/etc/prod.tfvars" must be relative to the project dir`},
		{"glob invalid", "version: 1\nprojects:\n  - dir: envs/dev\n    when_modified: [\"*.tf\", \"{a,b\"]\n", `.tfgate.yaml:4: project "envs/dev": when_modified "{a,b" is not a valid glob; check its [ ] and { } pairs`},
		{"glob absolute", "version: 1\nprojects:\n  - dir: envs/dev\n    when_modified: [/envs/**]\n", `.tfgate.yaml:4: project "envs/dev": when_modified "/envs/**" must be relative to the project dir`},
		{"depends_on unknown", "version: 1\nprojects:\n  - name: core-prod\n    dir: envs/prod/core\n  - dir: envs/prod/network\n    depends_on:\n      - core-prd\n", `.tfgate.yaml:7: project "envs/prod/network": depends_on "core-prd" is not a project (did you mean "core-prod"?)`},
		{"depends_on self", "version: 1\nprojects:\n  - name: dev\n    dir: envs/dev\n    depends_on: [dev]\n", `.tfgate.yaml:5: project "dev": depends_on lists the project itself; remove it`},
		{"depends_on cycle", "version: 1\nprojects:\n  - {name: c, dir: envs/prod/core, depends_on: [a]}\n  - {name: a, dir: envs/dev, depends_on: [b]}\n  - {name: b, dir: envs/prod/network, depends_on: [c]}\n",
			".tfgate.yaml:3: depends_on cycle: c -> a -> b -> c; remove one of these dependencies"},
		{"depends_on cycle starts at the first project in the file", "version: 1\nprojects:\n  - {name: a, dir: envs/dev}\n  - {name: b, dir: envs/prod/network, depends_on: [c]}\n  - {name: c, dir: envs/prod/core, depends_on: [a, b]}\n",
			".tfgate.yaml:4: depends_on cycle: b -> c -> b; remove one of these dependencies"},
		{"project approval", "version: 1\napproval: {min_approvals: 3}\nprojects:\n  - dir: envs/dev\n    approval:\n      destroy_min_approvals: 2\n",
			`.tfgate.yaml:6: project "envs/dev": approval.destroy_min_approvals (2) must be at least min_approvals (3); a destroy needs at least as many approvals as any change`},
		{"project approval unknown key", "version: 1\nprojects:\n  - dir: envs/dev\n    approval: {count: 2}\n", `.tfgate.yaml:4: unknown key "count" in project "envs/dev" approval; valid keys are min_approvals, destroy_min_approvals, teams, codeowners`},
		{"project approval type", "version: 1\nprojects:\n  - dir: envs/dev\n    approval: {min_approvals: many}\n", `.tfgate.yaml:4: project "envs/dev": approval.min_approvals must be a whole number, got "many"`},

		// Several problems are all reported, in line order.
		{"all problems", "version: 1\nprojects:\n  - dir: envs/nope\n    mode: x\nterraform: {binary: go}\n", strings.Join([]string{
			`.tfgate.yaml:3: project "envs/nope": dir "envs/nope" does not exist in the repository`,
			`.tfgate.yaml:4: project "envs/nope": mode must be "managed" or "observe", got "x"`,
			`.tfgate.yaml:5: terraform.binary must be "terraform" or "tofu", got "go"`,
		}, "\n")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Parse([]byte(tt.yaml), ".tfgate.yaml", root)
			if err == nil {
				t.Fatalf("Parse succeeded with %+v, want error\n%s", cfg, tt.want)
			}
			if cfg != nil {
				t.Errorf("Parse returned a config with its error: %+v", cfg)
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("error:\n got %s\nwant %s", got, tt.want)
			}
			var e *Error
			if !errors.As(err, &e) || e.File != ".tfgate.yaml" || e.Line == 0 {
				t.Errorf("error %#v does not carry the file and line", err)
			}
		})
	}
}

func TestParseFull(t *testing.T) {
	data, err := os.ReadFile("testdata/full.yaml")
	if err != nil {
		t.Fatal(err)
	}
	got, err := Parse(data, "testdata/full.yaml", newRoot(t))
	if err != nil {
		t.Fatalf("the reference example does not parse:\n%v", err)
	}
	want := &Config{
		Version:   1,
		Terraform: Terraform{Version: "~> 1.5", Binary: "terraform", PluginCache: true},
		Policies:  Policies{Paths: []string{"policies"}, Owners: []string{"alice", "org/platform-team"}},
		Approval:  Approval{MinApprovals: 1, DestroyMinApprovals: 2},
		Projects: []Project{{
			Name: "core-prod", Dir: "envs/prod/core", Workspace: "default", Mode: ModeManaged,
			Line: lineOf(data, "- name: core-prod"),
		}, {
			Name:         "network-prod",
			Dir:          "envs/prod/network",
			Workspace:    "default",
			VarFiles:     []string{"prod.tfvars"},
			WhenModified: []string{"*.tf", "*.tfvars", "../../modules/network/**"},
			DependsOn:    []string{"core-prod"},
			Mode:         ModeManaged,
			Approval:     &Approval{MinApprovals: 2, DestroyMinApprovals: 2},
			Line:         lineOf(data, "- name: network-prod"),
		}},
		Drift: Drift{Labels: []string{"drift"}}, GitHub: GitHub{Identity: "tfgate-app[bot]"},
		Apply: Apply{Verify: VerifyPlanFile},
		File:  "testdata/full.yaml",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Parse(full.yaml):\n got %s\nwant %s", dump(got), dump(want))
	}
}

func TestParseDefaults(t *testing.T) {
	withDefaults := func(edit func(c *Config)) *Config {
		c := Default()
		c.File = ".tfgate.yaml"
		edit(c)
		return c
	}
	dev := func(edit func(p *Project)) Project {
		p := Project{Name: "envs/dev", Dir: "envs/dev", Workspace: "default", Mode: ModeManaged, Line: 3}
		edit(&p)
		return p
	}
	tests := []struct {
		name, yaml string
		noRoot     bool
		want       *Config
	}{
		{"only version", "version: 1\n", false, withDefaults(func(*Config) {})},
		{"quoted version", "version: \"1\"\n", false, withDefaults(func(*Config) {})},
		{"empty sections", "version: 1\nterraform:\npolicies:\napproval:\napply:\ndrift:\n", false, withDefaults(func(*Config) {})},
		{"freeze", "version: 1\napply: {freeze: true}\n", false, withDefaults(func(c *Config) { c.Apply.Freeze = true })},
		{"verify replan", "version: 1\napply: {verify: replan}\n", false, withDefaults(func(c *Config) { c.Apply.Verify = VerifyReplan })},
		{"allow_modes", "version: 1\napply: {allow_modes: [targeted, destroy, targeted]}\n", false, withDefaults(func(c *Config) { c.Apply.AllowModes = []string{"targeted", "destroy"} })},
		{"project defaults", "version: 1\nprojects:\n  - dir: ./envs/dev/\n", false, withDefaults(func(c *Config) {
			c.Projects = []Project{dev(func(*Project) {})}
		})},
		{"empty lists stay empty, not default", "version: 1\nprojects:\n  - dir: envs/dev\n    when_modified: []\n    var_files: []\n", false, withDefaults(func(c *Config) {
			c.Projects = []Project{dev(func(p *Project) { p.WhenModified, p.VarFiles = []string{}, []string{} })}
		})},
		{"var files relative to dir", "version: 1\nprojects:\n  - dir: envs/dev\n    var_files: [../common.tfvars, ./../../root.tfvars]\n", false, withDefaults(func(c *Config) {
			c.Projects = []Project{dev(func(p *Project) { p.VarFiles = []string{"../common.tfvars", "../../root.tfvars"} })}
		})},
		{"destroy defaults to min", "version: 1\napproval: {min_approvals: 0}\n", false, withDefaults(func(c *Config) {
			c.Approval = Approval{MinApprovals: 0, DestroyMinApprovals: 0}
		})},
		{"destroy defaults to raised min", "version: 1\napproval: {min_approvals: 2}\n", false, withDefaults(func(c *Config) {
			c.Approval = Approval{MinApprovals: 2, DestroyMinApprovals: 2}
		})},
		{"project approval inherits", "version: 1\napproval: {min_approvals: 1, destroy_min_approvals: 2}\nprojects:\n" +
			"  - {dir: envs/dev, approval: {min_approvals: 3}}\n" +
			"  - {dir: envs/prod/core, approval: {min_approvals: 0}}\n" +
			"  - {dir: envs/prod/network, approval: {destroy_min_approvals: 4}}\n" +
			"  - {dir: modules/network, approval: {}}\n", false, withDefaults(func(c *Config) {
			c.Approval = Approval{MinApprovals: 1, DestroyMinApprovals: 2}
			c.Projects = []Project{
				{Name: "envs/dev", Dir: "envs/dev", Workspace: "default", Mode: ModeManaged, Line: 4, Approval: &Approval{MinApprovals: 3, DestroyMinApprovals: 3}},
				{Name: "envs/prod/core", Dir: "envs/prod/core", Workspace: "default", Mode: ModeManaged, Line: 5, Approval: &Approval{MinApprovals: 0, DestroyMinApprovals: 2}},
				{Name: "envs/prod/network", Dir: "envs/prod/network", Workspace: "default", Mode: ModeManaged, Line: 6, Approval: &Approval{MinApprovals: 1, DestroyMinApprovals: 4}},
				{Name: "modules/network", Dir: "modules/network", Workspace: "default", Mode: ModeManaged, Line: 7, Approval: &Approval{MinApprovals: 1, DestroyMinApprovals: 2}},
			}
		})},
		{"scalars are read as text", "version: 1\nterraform: {version: 1.5, binary: tofu, install: yes}\n", false, withDefaults(func(c *Config) {
			c.Terraform = Terraform{Version: "1.5", Binary: "tofu", Install: true, PluginCache: true}
		})},
		{"plugin cache off", "version: 1\nterraform: {plugin_cache: false}\n", false, withDefaults(func(c *Config) { c.Terraform.PluginCache = false })},
		{"plugin cache on", "version: 1\nterraform: {plugin_cache: true}\n", false, withDefaults(func(*Config) {})},
		{"plugin cache null keeps the default", "version: 1\nterraform: {plugin_cache: }\n", false, withDefaults(func(*Config) {})},
		{"owners may be written with @", "version: 1\npolicies: {owners: [\"@alice\", org/sre], paths: [./policies/]}\n", false, withDefaults(func(c *Config) {
			c.Policies = Policies{Paths: []string{"policies"}, Owners: []string{"alice", "org/sre"}}
		})},
		{"x- keys hold anchors for merges", "version: 1\nx-observed: &observed\n  mode: observe\n  workspace: w\nprojects:\n  - <<: *observed\n    dir: envs/dev\n    workspace: staging\n", false, withDefaults(func(c *Config) {
			c.Projects = []Project{{Name: "envs/dev", Dir: "envs/dev", Workspace: "staging", Mode: ModeObserve, Line: 6}}
		})},
		{"drift false", "version: 1\nprojects:\n  - dir: envs/dev\n    drift: false\ndrift: {labels: [drift, nightly]}\n", false, withDefaults(func(c *Config) {
			c.Projects = []Project{{Name: "envs/dev", Dir: "envs/dev", Workspace: "default", Mode: ModeManaged, Line: 3, SkipDrift: true}}
			c.Drift.Labels = []string{"drift", "nightly"}
		})},
		{"no root skips file system checks", "version: 1\npolicies: {paths: [nowhere]}\nprojects:\n  - dir: envs/gone\n    var_files: [gone.tfvars]\n", true, withDefaults(func(c *Config) {
			c.Policies.Paths = []string{"nowhere"}
			c.Projects = []Project{{Name: "envs/gone", Dir: "envs/gone", Workspace: "default", Mode: ModeManaged, Line: 4, VarFiles: []string{"gone.tfvars"}}}
		})},
	}
	root := newRoot(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := root
			if tt.noRoot {
				r = ""
			}
			got, err := Parse([]byte(tt.yaml), ".tfgate.yaml", r)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Parse:\n got %s\nwant %s", dump(got), dump(tt.want))
			}
		})
	}
}

// TestParseNoRoot checks that without a root (the base commit's configuration) the checks
// that read the disk are skipped and the others still run.
func TestParseNoRoot(t *testing.T) {
	tests := []struct {
		name, yaml, wantErr string
	}{
		// testdata exists relative to the test's working directory and holds no *.tf files.
		{name: "dir not checked for Terraform files", yaml: "version: 1\nprojects:\n  - dir: testdata\n"},
		{name: "dir not checked for existence", yaml: "version: 1\nprojects:\n  - dir: envs/gone\n"},
		{
			name:    "empty dir is still an error",
			yaml:    "version: 1\nprojects:\n  - dir: \"\"\n",
			wantErr: `.tfgate.yaml:3: project #1: dir is required and must not be empty`,
		},
		{
			name:    "null dir is still an error",
			yaml:    "version: 1\nprojects:\n  - dir: ~\n    name: x\n",
			wantErr: `.tfgate.yaml:3: project "x": dir is required and must not be empty`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.yaml), ".tfgate.yaml", "")
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("Parse: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("Parse error = %v, want it to contain %s", err, tt.wantErr)
			}
		})
	}
}

func TestDefault(t *testing.T) {
	want := &Config{Version: 1, Terraform: Terraform{Binary: "terraform", PluginCache: true}, Approval: Approval{MinApprovals: 1, DestroyMinApprovals: 1}}
	if got := Default(); !reflect.DeepEqual(got, want) {
		t.Errorf("Default() = %s, want %s", dump(got), dump(want))
	}
}

func TestLoad(t *testing.T) {
	root := newRoot(t)
	write := func(rel, content string) {
		t.Helper()
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("ci/tfgate.yaml", "version: 1\ndrift: {labels: [drift]}\n")
	write("ci/bad.yaml", "version: 1\nprojects: [{dir: envs/none}]\n")
	outside := filepath.Join(t.TempDir(), "shared.yaml")
	if err := os.WriteFile(outside, []byte("version: 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	misnamed := newRoot(t)
	if err := os.WriteFile(filepath.Join(misnamed, ".tfgate.yml"), []byte("version: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dirAsFile := newRoot(t)
	if err := os.Mkdir(filepath.Join(dirAsFile, FileName), 0o755); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name, root, path string
		explicit         bool
		want             *Config
		wantErr          string
		wantNotExist     bool
	}{
		{name: "no file means defaults", root: root, want: Default()},
		{name: "no file given explicitly", root: root, path: FileName, explicit: true,
			wantErr: ".tfgate.yaml: no such file; check the --config path", wantNotExist: true},
		{name: "explicit path relative to root", root: root, path: "ci/tfgate.yaml", explicit: true,
			want: &Config{Version: 1, Terraform: Terraform{Binary: "terraform", PluginCache: true}, Approval: Approval{MinApprovals: 1, DestroyMinApprovals: 1},
				Drift: Drift{Labels: []string{"drift"}}, File: filepath.Join(root, "ci/tfgate.yaml")}},
		{name: "errors name the file relative to root", root: root, path: "ci/bad.yaml", explicit: true,
			wantErr: `ci/bad.yaml:2: project "envs/none": dir "envs/none" does not exist in the repository`},
		{name: "file outside root keeps its path", root: root, path: outside, explicit: true,
			wantErr: outside + ":1: version must be 1, got 3; this tfgate reads configuration version 1"},
		{name: ".tfgate.yml is not ignored", root: misnamed,
			wantErr: ".tfgate.yml: tfgate reads .tfgate.yaml; rename this file"},
		{name: "unreadable", root: dirAsFile,
			wantErr: ".tfgate.yaml: cannot read the file: is a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Load(context.Background(), tt.root, tt.path, tt.explicit)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("Load error = %v, want %s", err, tt.wantErr)
				}
				if errors.Is(err, fs.ErrNotExist) != tt.wantNotExist {
					t.Errorf("errors.Is(err, fs.ErrNotExist) = %v, want %v", !tt.wantNotExist, tt.wantNotExist)
				}
				return
			}
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Load:\n got %s\nwant %s", dump(got), dump(tt.want))
			}
		})
	}

	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := Load(ctx, root, "ci/tfgate.yaml", true); !errors.Is(err, context.Canceled) {
			t.Errorf("Load with a cancelled context: %v, want context.Canceled", err)
		}
	})
}

func TestErrorFormat(t *testing.T) {
	one := &Error{File: "a.yaml", Line: 3, Column: 5, Msg: "bad"}
	whole := &Error{File: "a.yaml", Msg: "unreadable"}
	tests := []struct {
		err  error
		want string
	}{
		{one, "a.yaml:3: bad"},
		{whole, "a.yaml: unreadable"},
		{Errors{one, whole}, "a.yaml:3: bad\na.yaml: unreadable"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
	var e *Error
	if !errors.As(error(Errors{whole, one}), &e) || e != whole {
		t.Errorf("errors.As through Errors found %v, want the first *Error", e)
	}
}

func TestSuggest(t *testing.T) {
	keys := []string{"version", "terraform", "policies", "approval", "projects", "drift"}
	tests := []struct{ word, want string }{
		{"projetcs", "projects"},    // transposition
		{"project", "projects"},     // missing letter
		{"Approval", "approval"},    // case
		{"polices", "policies"},     // missing letter
		{"policy", "policies"},      // singular
		{"approvals", "approval"},   // plural
		{"drifts", "drift"},         // plural
		{"versions", "version"},     // plural
		{"terraform_", "terraform"}, // separator
		{"autoplan", ""},
		{"x", ""},
	}
	for _, tt := range tests {
		if got := suggest(tt.word, keys); got != tt.want {
			t.Errorf("suggest(%q) = %q, want %q", tt.word, got, tt.want)
		}
	}
	if got := suggest("var-files", []string{"var_files", "when_modified"}); got != "var_files" {
		t.Errorf("suggest(var-files) = %q, want var_files", got)
	}
}

// TestParseAllErrors shows every problem of a broken file at once, as a user sees them.
func TestParseAllErrors(t *testing.T) {
	data, err := os.ReadFile("testdata/invalid.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Parse(data, ".tfgate.yaml", newRoot(t))
	var es Errors
	if !errors.As(err, &es) || len(es) < 10 {
		t.Fatalf("Parse(invalid.yaml) = %v, want many errors", err)
	}
	golden.Check(t, golden.Path(t.Name()), []byte(err.Error()+"\n"))
}

func dump(c *Config) string {
	if c == nil {
		return "<nil>"
	}
	s := fmt.Sprintf("%+v", *c)
	for _, p := range c.Projects {
		if p.Approval != nil {
			s += fmt.Sprintf("\n  %s approval: %+v", p.Name, *p.Approval)
		}
	}
	return s
}
