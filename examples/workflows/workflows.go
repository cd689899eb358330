// Package workflows embeds the example GitHub Actions workflows of this directory: they are
// both what users copy by hand and the templates `tfgate init` writes (internal/setup), so
// the two can never drift apart.
package workflows

import "embed"

// FS holds every *.yml of the directory.
//
//go:embed *.yml
var FS embed.FS
