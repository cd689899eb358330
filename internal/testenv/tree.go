package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// RunEnv is the environment tests run terraform with: no CLI configuration, no
// prompts, the machine's PATH.
func RunEnv() map[string]string {
	return map[string]string{
		"PATH":               os.Getenv("PATH"),
		"HOME":               os.TempDir(),
		"TF_CLI_CONFIG_FILE": "/dev/null",
		"TF_IN_AUTOMATION":   "1",
		"TF_INPUT":           "0",
	}
}

// WriteTree writes files (slash paths → content) under a new temp dir and returns it.
func WriteTree(tb testing.TB, files map[string]string) string {
	tb.Helper()
	root := tb.TempDir()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return root
}
