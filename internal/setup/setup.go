// Package setup is what `tfgate init` writes into a repository: the GitHub Actions
// workflows (plan, gate, apply, drift), made from the example workflows tfgate ships
// (examples/workflows, embedded: one source for both), and a commented .tfgate.yaml. It
// never overwrites a file unless told to, and writes all files or none.
package setup

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/tfgate/tfgate/examples/workflows"
	"github.com/tfgate/tfgate/internal/config"
)

// Project is a Terraform project init found.
type Project struct {
	Name, Dir, Workspace string
}

// Options say what to write.
type Options struct {
	DefaultBranch string    // the branch pull requests merge into, e.g. "main"
	Projects      []Project // in project order; at least one
	Action        Action    // the action's ref (ActionFor); zero: the examples' (ExampleRef)
}

// File is one file to write, at a slash path relative to the repository root.
type File struct {
	Path    string
	Content []byte
}

// WorkflowDir is where the workflows go.
const WorkflowDir = ".github/workflows"

// Workflows are the example workflows init writes, each under its own name.
var Workflows = []string{"plan.yml", "gate.yml", "apply.yml", "drift.yml"}

// Files renders everything init writes: the workflows, then .tfgate.yaml.
func Files(opts Options) ([]File, error) {
	if opts.DefaultBranch == "" {
		return nil, errors.New("no default branch given")
	}
	if len(opts.Projects) == 0 {
		return nil, errors.New("no Terraform projects given")
	}
	var out []File
	for _, name := range Workflows {
		data, err := fs.ReadFile(workflows.FS, name)
		if err != nil {
			return nil, fmt.Errorf("example workflow %s: %w", name, err)
		}
		content, err := workflow(name, data, opts)
		if err != nil {
			return nil, err
		}
		out = append(out, File{Path: WorkflowDir + "/" + name, Content: content})
	}
	out = append(out, File{Path: config.FileName, Content: configFile(opts)})
	return out, nil
}

// copyLine is the example's "Copy to .github/workflows/X.yml." sentence, which a written
// workflow no longer needs (with apply's "and name your default branch below"); an example
// without one is written as it is.
var copyLine = regexp.MustCompile(`Copy to \.github/workflows/[a-z-]+\.yml( and name your default branch below)?\.\s*`)

// branchesLine is apply.yml's trigger: pushes to the default branch.
const branchesLine = "    branches: [main]\n"

func workflow(name string, data []byte, opts Options) ([]byte, error) {
	text := string(data)
	var kept []string
	for _, l := range strings.SplitAfter(text, "\n") {
		l2 := copyLine.ReplaceAllString(l, "")
		if l2 != l && strings.TrimSpace(l2) == "#" {
			continue // the sentence was the whole line
		}
		kept = append(kept, l2)
	}
	text = strings.Join(kept, "")
	if strings.Count(text, exampleUses) == 0 {
		return nil, fmt.Errorf("example workflow %s: no %q line to pin the action in (the example changed: update internal/setup)", name, strings.TrimSpace(exampleUses))
	}
	if opts.Action.Ref != "" {
		text = strings.ReplaceAll(text, exampleUses, opts.Action.uses())
	}
	if name == "apply.yml" {
		if strings.Count(text, branchesLine) != 1 {
			return nil, fmt.Errorf("example workflow %s: want one %q line to name the default branch in (the example changed: update internal/setup)", name, strings.TrimSpace(branchesLine))
		}
		text = strings.Replace(text, branchesLine, "    branches: ["+yamlScalar(opts.DefaultBranch)+"]\n", 1)
	}
	var head strings.Builder
	fmt.Fprintf(&head, "# Written by `tfgate init` from tfgate's examples/workflows/%s; edit it as you need\n", name)
	head.WriteString("# (`tfgate doctor` checks it, `tfgate init --force` writes it anew).\n")
	if name == "plan.yml" || name == "drift.yml" {
		head.WriteString("#\n# The projects tfgate found (`tfgate projects` lists them):\n")
		for _, p := range opts.Projects {
			head.WriteString("#   " + describe(p) + "\n")
		}
	}
	if name == "plan.yml" {
		head.WriteString("# Every pull request runs this workflow, with no paths filter: tfgate finds the projects\n" +
			"# it changes, and tfgate/gate, a required check, stays pending on a pull request whose\n" +
			"# workflow never ran.\n")
	}
	head.WriteString("#\n")
	return []byte(head.String() + text), nil
}

func describe(p Project) string {
	s := p.Name
	if p.Dir != p.Name {
		s += " (" + p.Dir + ")"
	}
	if p.Workspace != "" && p.Workspace != "default" {
		s += ", workspace " + p.Workspace
	}
	return s
}

// plainScalar is a string YAML reads as itself without quotes.
var plainScalar = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._/-]*$`)

// yamlScalar writes s as a YAML flow scalar: plain when that reads back as s, else
// double-quoted (a JSON string is a YAML one).
func yamlScalar(s string) string {
	if plainScalar.MatchString(s) && !isYAMLKeyword(s) {
		return s
	}
	return strconv.Quote(s)
}

func isYAMLKeyword(s string) bool {
	switch strings.ToLower(s) {
	case "true", "false", "yes", "no", "on", "off", "null", "y", "n", "~":
		return true
	}
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

// configFile is a .tfgate.yaml that sets only the version: projects stay autodetected, and
// every other setting is shown commented out, ready to use. Lines "# key: …" and "#   - …"
// are settings to uncomment; prose starts with a capital or a word without a colon.
func configFile(opts Options) []byte {
	var b bytes.Buffer
	b.WriteString(`# tfgate configuration, written by ` + "`tfgate init`" + `. Only "version" is required: uncomment
# what you need. tfgate reads the approval rules and the policies from the base commit of a
# pull request, so a change to this file takes effect once it is merged.
version: 1

# The binary that plans and applies: terraform (the default) or tofu, a version constraint,
# and whether tfgate may download a matching version when none is installed.
# terraform:
#   binary: terraform
#   version: "~> 1.5"
#   install: true

# Rego policies every plan is checked against (default: policies/ when it exists), and the
# GitHub logins or org/team slugs whose approval overrides a deny.
# policies:
#   paths: [policies]
#   owners: ["org/platform-team"]

# Approving reviews the gate requires, and for a plan that deletes or replaces anything.
# approval:
#   min_approvals: 1
#   destroy_min_approvals: 2

# Without a projects list tfgate finds every Terraform root module itself, so new ones are
# planned without an edit here. It found these; list them to name them, order them, or give
# one rules of its own (approval, depends_on, mode: observe, drift: false):
# projects:
`)
	for _, p := range opts.Projects {
		fmt.Fprintf(&b, "#   - name: %s\n#     dir: %s\n", yamlScalar(p.Name), yamlScalar(p.Dir))
		if p.Workspace != "" && p.Workspace != "default" {
			fmt.Fprintf(&b, "#     workspace: %s\n", yamlScalar(p.Workspace))
		}
	}
	return b.Bytes()
}

// ExistsError refuses to overwrite files without --force; nothing was written.
type ExistsError struct {
	Files []string // slash paths relative to the root, in write order
}

func (e *ExistsError) Error() string {
	verb, it := "exist", "them"
	if len(e.Files) == 1 {
		verb, it = "exists", "it"
	}
	return fmt.Sprintf("%s already %s; nothing was written: run `tfgate init --force` to overwrite %s, or move %s away first",
		strings.Join(e.Files, ", "), verb, it, it)
}

// Paths are the files init writes, in write order.
func Paths() []string {
	var out []string
	for _, name := range Workflows {
		out = append(out, WorkflowDir+"/"+name)
	}
	return append(out, config.FileName)
}

// CheckFree is an *ExistsError naming every one of paths (slash, relative to root) that
// exists, or nil.
func CheckFree(root string, paths []string) error {
	var exist []string
	for _, p := range paths {
		_, err := os.Lstat(filepath.Join(root, filepath.FromSlash(p)))
		switch {
		case err == nil:
			exist = append(exist, p)
		case !errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("check %s: %w", p, err)
		}
	}
	if len(exist) > 0 {
		return &ExistsError{Files: exist}
	}
	return nil
}

// Write writes files under root. Unless force, it first checks that none of them exists
// and refuses (an *ExistsError naming every one that does) without writing anything.
func Write(root string, files []File, force bool) error {
	if !force {
		paths := make([]string, len(files))
		for i, f := range files {
			paths[i] = f.Path
		}
		if err := CheckFree(root, paths); err != nil {
			return err
		}
	}
	for _, f := range files {
		path := filepath.Join(root, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("write %s: %w", f.Path, err)
		}
		tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
		if err != nil {
			return fmt.Errorf("write %s: %w", f.Path, err)
		}
		_, err = tmp.Write(f.Content)
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Chmod(tmp.Name(), 0o644)
		}
		if err == nil {
			err = os.Rename(tmp.Name(), path)
		}
		if err != nil {
			os.Remove(tmp.Name())
			return fmt.Errorf("write %s: %w", f.Path, err)
		}
	}
	return nil
}
