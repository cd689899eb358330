package config

import (
	"path"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"gopkg.in/yaml.v3"
)

// Autodetect narrows which directories autodetection makes projects (when the file lists
// no projects). Both are doublestar globs matched against directories relative to the
// repository root: "examples/*", "test/fixtures/**".
type Autodetect struct {
	Include []string // nil or empty: every directory
	Exclude []string // wins over Include
}

// Selects reports whether the root-relative directory dir may be an autodetected project.
// A glob ending in "/**" also matches the directory it names ("test/**" covers "test").
func (a Autodetect) Selects(dir string) bool {
	if len(a.Include) > 0 && !matchAny(a.Include, dir) {
		return false
	}
	return !matchAny(a.Exclude, dir)
}

func matchAny(globs []string, dir string) bool {
	for _, g := range globs {
		if ok, _ := doublestar.Match(g, dir); ok {
			return true
		}
	}
	return false
}

func (d *decoder) autodetect(n *yaml.Node, a *Autodetect) {
	d.section(n, "autodetect", []field{
		{"include", func(_, v *yaml.Node) { a.Include = d.dirGlobs(v, "autodetect.include") }},
		{"exclude", func(_, v *yaml.Node) { a.Exclude = d.dirGlobs(v, "autodetect.exclude") }},
	})
}

// dirGlobs reads a list of globs over root-relative directories.
func (d *decoder) dirGlobs(n *yaml.Node, what string) []string {
	vals, nodes, ok := d.list(n, what)
	if !ok {
		return nil
	}
	out := []string{}
	for i, s := range vals {
		g := strings.TrimPrefix(strings.TrimSuffix(s, "/"), "./")
		switch {
		case strings.Contains(s, `\`):
			d.errorf(nodes[i], "%s %q must use forward slashes", what, s)
		case path.IsAbs(s):
			d.errorf(nodes[i], "%s %q must be relative to the repository root", what, s)
		case g == ".." || strings.HasPrefix(g, "../"):
			d.errorf(nodes[i], "%s %q is outside the repository", what, s)
		case !doublestar.ValidatePattern(g):
			d.errorf(nodes[i], "%s %q is not a valid glob; check its [ ] and { } pairs", what, s)
		default:
			out = append(out, g)
		}
	}
	return out
}
