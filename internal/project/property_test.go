package project

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tfgate/tfgate/internal/bundle"
)

// TestChangedAgreesWithInputHash is the property that keeps change detection and bundle
// input hashing from drifting apart: in random small repositories (directories nested in
// each other, modules calling modules, the root as a module, templates, docs, hidden
// directories, symbolic links to files and to directories), the projects Changed selects for a change are exactly those
// whose input hash (InputFiles, bundle.HashInputs) the change alters.
//
// Changes are edits of existing files and new files that are not Terraform files. Two
// kinds of change are left out on purpose because they move the boundary between modules
// (a new *.tf in a plain subdirectory makes it a module of its own; deleting the last
// one makes it plain again): their selection may differ from the hash by design, planning
// the new module's users rather than the parent's.
func TestChangedAgreesWithInputHash(t *testing.T) {
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 8))
		root := t.TempDir()
		files, links := randomRepo(r)
		writeTree(t, root, files)
		for link, target := range links {
			if err := os.MkdirAll(filepath.Join(root, filepath.FromSlash(path.Dir(link))), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, filepath.Join(root, filepath.FromSlash(link))); err != nil {
				t.Fatal(err)
			}
		}
		before := inputHashes(t, root)
		change := randomChange(r, files, links)
		full := filepath.Join(root, filepath.FromSlash(change))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		f, err := os.OpenFile(full, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(f, "\n# edited\n")
		f.Close()
		after := inputHashes(t, root)

		ps, err := Discover(t.Context(), root, nil)
		if err != nil {
			t.Fatal(err)
		}
		var hashed, selected []string
		for name, h := range after {
			if before[name] != h {
				hashed = append(hashed, name)
			}
		}
		for _, tc := range ChangedWhy(ps, []string{change}) {
			selected = append(selected, tc.Project.Name)
		}
		slices.Sort(hashed)
		slices.Sort(selected)
		if !slices.Equal(hashed, selected) {
			t.Errorf("seed %d: change to %s selects %q, input hash changes for %q\nfiles: %q\nlinks: %q", seed, change, selected, hashed, sortedFileNames(files), links)
		}
	}
}

// randomRepo returns files and symbolic links (link → target, relative to the link).
func randomRepo(r *rand.Rand) (map[string]string, map[string]string) {
	names := []string{"a", "b", "c"}
	var dirs []string
	var walk func(dir string, depth int)
	walk = func(dir string, depth int) {
		dirs = append(dirs, dir)
		if depth == 3 {
			return
		}
		for _, n := range names {
			if r.IntN(3) == 0 {
				walk(path.Join(dir, n), depth+1)
			}
		}
	}
	walk(".", 0)
	files := map[string]string{}
	var modules []string
	for _, d := range dirs {
		if r.IntN(2) == 0 || d == "." && r.IntN(2) == 0 {
			modules = append(modules, d)
		}
	}
	for _, d := range modules {
		main := "variable \"x\" {}\n"
		for _, m := range modules {
			if m != d && r.IntN(4) == 0 {
				rel, _ := filepath.Rel(filepath.FromSlash(d), filepath.FromSlash(m))
				src := filepath.ToSlash(rel)
				if !startsWithDotDot(src) {
					src = "./" + src
				}
				main += module("m"+fmt.Sprint(len(main)), src)
			}
		}
		files[path.Join(d, "main.tf")] = main
	}
	extras := []string{"templates/t.tpl", "README.md", ".hidden/x.tf", "x.tfvars", "files/deep/y.json", "notes.txt", "terraform.tfstate"}
	for _, d := range dirs {
		for _, e := range extras {
			if r.IntN(4) == 0 {
				files[path.Join(d, e)] = "content\n"
			}
		}
	}
	if len(files) == 0 {
		files["main.tf"] = "variable \"x\" {}\n"
	}
	links := map[string]string{}
	all := sortedFileNames(files)
	for i := 0; i < 3 && len(all) > 0; i++ {
		d := dirs[r.IntN(len(dirs))]
		target := all[r.IntN(len(all))]
		link := path.Join(d, fmt.Sprintf("link%d.auto.tfvars", i))
		if _, taken := files[link]; taken || links[link] != "" {
			continue
		}
		rel, _ := filepath.Rel(filepath.FromSlash(d), filepath.FromSlash(target))
		links[link] = rel
	}
	// One link to a directory that is not one of the link's own (that would be a loop).
	d, target := dirs[r.IntN(len(dirs))], dirs[r.IntN(len(dirs))]
	if link := path.Join(d, "linkdir"); target != "." && d != target && !strings.HasPrefix(d+"/", target+"/") && files[link] == "" {
		rel, _ := filepath.Rel(filepath.FromSlash(d), filepath.FromSlash(target))
		links[link] = rel
	}
	return files, links
}

// randomChange picks an existing regular file to edit or a new non-Terraform file to add.
func randomChange(r *rand.Rand, files, links map[string]string) string {
	all := sortedFileNames(files)
	if r.IntN(4) > 0 {
		return all[r.IntN(len(all))]
	}
	dir := path.Dir(all[r.IntN(len(all))])
	return path.Join(dir, []string{"new.tpl", "sub/new.sh", "new.tfvars", "NEW.md", ".new"}[r.IntN(5)])
}

func inputHashes(t *testing.T, root string) map[string]string {
	t.Helper()
	ps, err := Discover(t.Context(), root, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, p := range ps {
		files, err := InputFiles(t.Context(), root, p)
		if err != nil {
			t.Fatal(err)
		}
		_, h, err := bundle.HashInputs(t.Context(), root, files)
		if err != nil {
			t.Fatal(err)
		}
		out[p.Name] = h
	}
	return out
}

func sortedFileNames(files map[string]string) []string {
	names := make([]string, 0, len(files))
	for f := range files {
		names = append(names, f)
	}
	slices.Sort(names)
	return names
}
