// Package tffiles says which files are Terraform (or OpenTofu) configuration: the one
// definition that project discovery, config validation and terraform's error redaction share.
package tffiles

import (
	"os"
	"strings"
)

// Extensions of configuration files. OpenTofu (>= 1.8) also reads *.tofu and *.tofu.json,
// beside and instead of a *.tf of the same name.
var Extensions = []string{".tf", ".tf.json", ".tofu", ".tofu.json"}

// Globs are Extensions as glob patterns ("*.tf", …).
var Globs = []string{"*.tf", "*.tf.json", "*.tofu", "*.tofu.json"}

// IsConfig reports whether a file called name is Terraform or OpenTofu configuration.
func IsConfig(name string) bool {
	for _, ext := range Extensions {
		if strings.HasSuffix(name, ext) {
			return true
		}
	}
	return false
}

// DirHasConfig reports whether the directory dir directly holds a configuration file.
func DirHasConfig(dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if !e.IsDir() && IsConfig(e.Name()) {
			return true
		}
	}
	return false
}
