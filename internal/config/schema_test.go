package config

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"
)

// schemaFile is the JSON Schema editors validate .tfgate.yaml with.
var schemaFile = filepath.Join("..", "..", "docs", "tfgate.schema.json")

// TestSchemaKeys holds docs/tfgate.schema.json to the loader: every mapping has exactly
// the keys the loader accepts there (read from the loader's own "valid keys are" message).
func TestSchemaKeys(t *testing.T) {
	var schema map[string]any
	data, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &schema); err != nil {
		t.Fatal(err)
	}
	defs := schema["$defs"].(map[string]any)
	props := func(node map[string]any) []string {
		if ref, ok := node["$ref"].(string); ok {
			node = defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
		}
		var keys []string
		for k := range node["properties"].(map[string]any) {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		return keys
	}
	top := schema["properties"].(map[string]any)
	section := func(name string) map[string]any { return top[name].(map[string]any) }
	project := section("projects")["items"].(map[string]any)
	for _, tc := range []struct {
		where  string
		src    string // a document with an unknown key zzzzzz in the mapping
		schema map[string]any
	}{
		{"top level", "zzzzzz: 1\n", schema},
		{"terraform", "terraform:\n  zzzzzz: 1\n", section("terraform")},
		{"policies", "policies:\n  zzzzzz: 1\n", section("policies")},
		{"approval", "approval:\n  zzzzzz: 1\n", section("approval")},
		{"apply", "apply:\n  zzzzzz: 1\n", section("apply")},
		{"autodetect", "autodetect:\n  zzzzzz: 1\n", section("autodetect")},
		{"drift", "drift:\n  zzzzzz: 1\n", section("drift")},
		{"github", "github:\n  zzzzzz: 1\n", section("github")},
		{"project", "projects:\n  - dir: .\n    zzzzzz: 1\n", project},
		{"project approval", "projects:\n  - dir: .\n    approval:\n      zzzzzz: 1\n", project["properties"].(map[string]any)["approval"].(map[string]any)},
	} {
		_, err := Parse([]byte("version: 1\n"+tc.src), FileName, "")
		if err == nil {
			t.Fatalf("%s: the loader accepted an unknown key", tc.where)
		}
		_, list, ok := strings.Cut(err.Error(), "valid keys are ")
		if !ok {
			t.Fatalf("%s: %v", tc.where, err)
		}
		loader := strings.Split(list, ", ")
		slices.Sort(loader)
		if got := props(tc.schema); !slices.Equal(got, loader) {
			t.Errorf("%s: the schema has keys %q, the loader accepts %q: update docs/tfgate.schema.json", tc.where, got, loader)
		}
	}
}

// TestSchemaAgreesWithLoader validates documents with both: what the loader accepts the
// schema accepts, and the mistakes an editor can see without the repository are refused by
// both.
func TestSchemaAgreesWithLoader(t *testing.T) {
	c := jsonschema.NewCompiler()
	data, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddResource("tfgate.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("tfgate.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	validate := func(src string) error {
		var v any
		if err := yaml.Unmarshal([]byte(src), &v); err != nil {
			t.Fatal(err)
		}
		j, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(j))
		if err != nil {
			t.Fatal(err)
		}
		return sch.Validate(inst)
	}
	full := `version: 1
x-defaults: &defaults {min_approvals: 2}
terraform: {version: "~> 1.5", binary: tofu, install: false, plugin_cache: true}
policies: {paths: [policies], owners: [alice, org/platform]}
approval: {min_approvals: 1, destroy_min_approvals: 2}
apply: {freeze: false, allow_modes: [destroy, refresh-only, targeted], verify: replan}
projects:
  - name: network-prod
    dir: envs/prod/network
    workspace: default
    var_files: [prod.tfvars]
    when_modified: ["*.tf", "../../modules/network/**"]
    depends_on: [core]
    mode: observe
    drift: false
    approval: *defaults
  - name: core
    dir: envs/prod/core
drift: {labels: [drift]}
github: {identity: "my-app[bot]", allow_pull_request_target_forks: false}
ignore: ["**/*.md", "docs/**"]
`
	good := []string{full, "version: 1\n", "version: 1\nautodetect: {include: [\"envs/**\"], exclude: [test]}\n", "version: 1\nignore: []\n"}
	for _, src := range good {
		if _, err := Parse([]byte(src), FileName, ""); err != nil {
			t.Errorf("loader refuses %q: %v", src, err)
		}
		if err := validate(src); err != nil {
			t.Errorf("schema refuses %q: %v", src, err)
		}
	}
	bad := []string{
		"terraform: {binary: tofu}\n", // no version
		"version: 2\n",
		"version: 1\nprojetcs: []\n",
		"version: 1\nterraform: {binary: opentofu}\n",
		"version: 1\napproval: {min_approvals: -1}\n",
		"version: 1\napproval: {min_approvals: two}\n",
		"version: 1\nprojects: []\n",
		"version: 1\nprojects:\n  - name: x\n",
		"version: 1\nprojects:\n  - dir: a\n    mode: readonly\n",
		"version: 1\ndrift: {labels: [\"" + strings.Repeat("l", 51) + "\"]}\n",
		"version: 1\napply: {freeze: yes please}\n",
		"version: 1\nignore: \"*.md\"\n",
		"version: 1\napply: {allow_modes: [everything]}\n",
		"version: 1\napply: {verify: twice}\n",
	}
	for _, src := range bad {
		if _, err := Parse([]byte(src), FileName, ""); err == nil {
			t.Errorf("loader accepts %q", src)
		}
		if err := validate(src); err == nil {
			t.Errorf("schema accepts %q", src)
		}
	}
}
