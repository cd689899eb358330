package project

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func writeLinks(t *testing.T, root string, links map[string]string) {
	t.Helper()
	for name, target := range links {
		full := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, full); err != nil {
			t.Fatal(err)
		}
	}
}

// TestLinkedDirectory checks that a link to a directory makes the files below its target
// inputs of the project holding the link, by the contents rules: hashed under the link's
// path, selecting the project when they change, and staying shared (or another project's
// own) where they were.
func TestLinkedDirectory(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"envs/dev/main.tf":                module("helper", "./scripts/helper") + module("net", "./net"),
		"modules/net/main.tf":             "variable \"x\" {}\n",
		"modules/net/files/rules.json":    "{}\n",
		"envs/dev/scripts/deploy.sh":      "#!/bin/sh\n",
		"envs/dev/scripts/README.md":      "# scripts\n",
		"envs/dev/scripts/helper/main.tf": "variable \"x\" {}\n",
		"envs/prod/main.tf":               "",
		"tools/run.sh":                    "#!/bin/sh\n",
		"common.tfvars":                   "x = 1\n",
	})
	writeLinks(t, root, map[string]string{
		"envs/prod/scripts":         "../dev/scripts",
		"envs/prod/tools":           "../../tools",
		"tools/common.auto.tfvars":  "../common.tfvars", // relative to tools/, not to envs/prod/tools
		"envs/prod/.hidden-scripts": "../dev/scripts",
		"envs/dev/net":              "../../modules/net", // a module called through a link
	})
	ps, err := Discover(t.Context(), root, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := names(ps); !slices.Equal(got, []string{"envs/dev", "envs/prod", "modules/net"}) {
		t.Fatalf("projects = %q", got)
	}
	prod := ps[1]
	if !slices.Equal(prod.Linked, []string{"envs/dev/scripts", "tools"}) || len(prod.Problems) != 0 {
		t.Errorf("prod: Linked = %q, Problems = %q", prod.Linked, prod.Problems)
	}
	files, err := InputFiles(t.Context(), root, prod)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"envs/prod/main.tf", "envs/prod/scripts/deploy.sh", "envs/prod/tools/common.auto.tfvars", "envs/prod/tools/run.sh"}
	if !slices.Equal(files, want) {
		t.Errorf("InputFiles(prod) =\n  %q\nwant\n  %q", files, want)
	}
	tests := []struct {
		file string
		want []string
	}{
		{"envs/dev/scripts/deploy.sh", []string{"envs/dev", "envs/prod"}},
		{"envs/dev/scripts/added.sh", []string{"envs/dev", "envs/prod"}}, // or deleted
		{"envs/dev/scripts/README.md", []string{}},
		{"envs/dev/scripts/helper/main.tf", []string{"envs/dev"}}, // a module of its own, not prod's through the link
		{"tools/run.sh", []string{"envs/prod"}},
		{"common.tfvars", []string{"envs/prod"}},
		{"envs/prod/scripts", []string{"envs/prod"}}, // the link itself
		{"modules/net/files/rules.json", []string{"envs/dev", "modules/net"}},
	}
	for _, tt := range tests {
		if got := changedNames(ps, []string{tt.file}); !slices.Equal(got, tt.want) {
			t.Errorf("ChangedWhy(%s) = %q, want %q", tt.file, got, tt.want)
		}
	}
	// dev's file stays dev's; the shared script stays shared.
	if got := Unowned(ps, []string{"envs/dev/scripts/deploy.sh", "tools/run.sh"}); !slices.Equal(got, []string{"tools/run.sh"}) {
		t.Errorf("Unowned = %q, want only the shared script", got)
	}
}

// TestLinkedDirectoryRefused checks that links whose directories would be walked without
// end, or that leave the repository, are problems of the project naming the link.
func TestLinkedDirectoryRefused(t *testing.T) {
	tests := []struct {
		name  string
		links map[string]string
		want  string
	}{
		{"link to the project's own directory", map[string]string{"envs/prod/self": "."}, "envs/prod/self: symbolic link to envs/prod makes a loop"},
		{"link to a directory above", map[string]string{"envs/prod/files/up": "../.."}, "envs/prod/files/up: symbolic link to envs makes a loop"},
		{"link to the root", map[string]string{"envs/prod/root": "../.."}, "envs/prod/root: symbolic link to . makes a loop"},
		{"two directories linking each other", map[string]string{"envs/prod/a/to-b": "../b", "envs/prod/b/to-a": "../a"}, "symbolic link to envs/prod/a makes a loop"},
		{"links to each other", map[string]string{"envs/prod/x": "y", "envs/prod/y": "x"}, "envs/prod/x: symbolic links lead to each other"},
		{"link out of the repository", map[string]string{"envs/prod/ext": "../../../outside"}, "envs/prod/ext: symbolic link points outside the repository"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := t.TempDir()
			root := filepath.Join(base, "repo")
			writeTree(t, base, map[string]string{"outside/x.sh": "", "repo/envs/prod/main.tf": "", "repo/envs/prod/files/a.sh": "", "repo/envs/prod/a/a.sh": "", "repo/envs/prod/b/b.sh": ""})
			writeLinks(t, root, tt.links)
			ps, err := Discover(t.Context(), root, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(ps) != 1 || !slices.ContainsFunc(ps[0].Problems, func(p string) bool { return strings.Contains(p, tt.want) }) {
				t.Errorf("problems = %q, want one saying %q", ps[0].Problems, tt.want)
			}
			if _, err := InputFiles(t.Context(), root, ps[0]); err != nil {
				t.Errorf("InputFiles: %v", err)
			}
		})
	}
}
