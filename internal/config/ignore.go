package config

import (
	"github.com/bmatcuk/doublestar/v4"
	"gopkg.in/yaml.v3"
)

// DefaultIgnore are the files a change may touch without a review when the configuration
// does not say otherwise: documentation and licences, which terraform does not read in any
// ordinary configuration. A configuration's ignore list replaces them (ignore: [] makes
// every file count).
var DefaultIgnore = []string{"**/*.md", "**/LICENSE", "**/LICENSE.*", "docs/**", ".gitignore", "**/.gitignore"}

// Ignores reports whether the root-relative file is inert under cfg: a change to it, when
// it belongs to no project, needs no review and does not make plans stale. Only the base
// commit's configuration may say so (see pipeline): a change cannot make its own files
// inert.
func (c *Config) Ignores(file string) bool {
	globs := c.Ignore
	if globs == nil {
		globs = DefaultIgnore
	}
	for _, g := range globs {
		if ok, _ := doublestar.Match(g, file); ok {
			return true
		}
	}
	return false
}

// ignore reads the top-level ignore list: doublestar globs over root-relative files.
func (d *decoder) ignore(n *yaml.Node) []string {
	globs := d.dirGlobs(n, "ignore")
	if globs == nil {
		return []string{} // set but broken or empty: nothing is ignored, never the defaults
	}
	return globs
}
