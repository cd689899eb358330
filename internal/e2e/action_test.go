package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestActionScriptsInterpolateNothing holds action.yml to the rule that inputs reach its
// scripts only through environment variables: `${{ }}` inside `run:` is pasted into the script
// before the shell reads it, so an input (or a branch name passed as one) could inject shell
// code. actionlint checks this in workflows but not in a composite action's steps.
func TestActionScriptsInterpolateNothing(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var action struct {
		Runs struct {
			Using string `yaml:"using"`
			Steps []struct {
				Name  string `yaml:"name"`
				Run   string `yaml:"run"`
				Shell string `yaml:"shell"`
			} `yaml:"steps"`
		} `yaml:"runs"`
	}
	if err := yaml.Unmarshal(data, &action); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	if action.Runs.Using != "composite" || len(action.Runs.Steps) == 0 {
		t.Fatalf("action.yml: want a composite action with steps, got using %q and %d steps", action.Runs.Using, len(action.Runs.Steps))
	}
	for _, s := range action.Runs.Steps {
		if s.Run == "" {
			continue
		}
		if strings.Contains(s.Run, "${{") {
			t.Errorf("action.yml step %q: run: holds a ${{ }} expression; pass the value through env: instead", s.Name)
		}
		if s.Shell != "bash" {
			t.Errorf("action.yml step %q: shell %q, want bash (the scripts use bash arrays)", s.Name, s.Shell)
		}
	}
}
