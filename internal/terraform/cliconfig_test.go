package terraform

import (
	"os"
	"path/filepath"
	"testing"
)

func TestUserPluginCache(t *testing.T) {
	home := t.TempDir()
	files := map[string]string{
		"hcl2.tfrc":     "plugin_cache_dir = \"/cache/hcl\"\nprovider_installation {\n  direct {}\n}\n",
		"template.tfrc": "plugin_cache_dir = \"${HOME}/.terraform.d/plugin-cache\"\n",
		"dollar.tfrc":   "plugin_cache_dir = \"$HOME/cache\"\n",
		// HCL 1 alone reads this (a block without "=" after a key with a dot): the line is
		// still found.
		"hcl1.tfrc":      "plugin_cache_dir = \"/cache/hcl1\"\nhost \"example.com\" = { services = {} }\n",
		"none.tfrc":      "disable_checkpoint = true\n",
		"relative.tfrc":  "plugin_cache_dir = \"cache\"\n",
		"commented.tfrc": "# plugin_cache_dir = \"/not/this\"\n",
	}
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rc := func(name string) map[string]string {
		return map[string]string{"HOME": home, "TF_CLI_CONFIG_FILE": filepath.Join(dir, name)}
	}
	tests := []struct {
		name      string
		env       map[string]string
		dir, from string
	}{
		{"environment", map[string]string{"TF_PLUGIN_CACHE_DIR": "/env/cache", "TF_CLI_CONFIG_FILE": filepath.Join(dir, "hcl2.tfrc")}, "/env/cache", "TF_PLUGIN_CACHE_DIR"},
		{"relative environment", map[string]string{"TF_PLUGIN_CACHE_DIR": "cache"}, "", ""},
		{"cli config", rc("hcl2.tfrc"), "/cache/hcl", filepath.Join(dir, "hcl2.tfrc")},
		{"template expanded", rc("template.tfrc"), home + "/.terraform.d/plugin-cache", filepath.Join(dir, "template.tfrc")},
		{"variable expanded", rc("dollar.tfrc"), home + "/cache", filepath.Join(dir, "dollar.tfrc")},
		{"hcl 1 only", rc("hcl1.tfrc"), "/cache/hcl1", filepath.Join(dir, "hcl1.tfrc")},
		{"not set", rc("none.tfrc"), "", ""},
		{"relative", rc("relative.tfrc"), "", ""},
		{"commented out", rc("commented.tfrc"), "", ""},
		{"missing file", rc("missing.tfrc"), "", ""},
		{"no config at all", map[string]string{}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, from := UserPluginCache(tt.env)
			if dir != tt.dir || from != tt.from {
				t.Errorf("UserPluginCache = %q from %q, want %q from %q", dir, from, tt.dir, tt.from)
			}
		})
	}
}

// TestUserPluginCacheHome: without TF_CLI_CONFIG_FILE terraform reads ~/.terraformrc and
// then ~/.terraform.d/*.tfrc, taking the first plugin_cache_dir.
func TestUserPluginCacheHome(t *testing.T) {
	home := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		p := filepath.Join(home, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{"HOME": home}
	write(".terraform.d/b.tfrc.json", `{"plugin_cache_dir": "/from/json"}`)
	if dir, _ := UserPluginCache(env); dir != "/from/json" {
		t.Errorf("with ~/.terraform.d/b.tfrc.json: %q", dir)
	}
	write(".terraformrc", "plugin_cache_dir = \"/from/rc\"\n")
	if dir, from := UserPluginCache(env); dir != "/from/rc" || from != filepath.Join(home, ".terraformrc") {
		t.Errorf("with ~/.terraformrc: %q from %q", dir, from)
	}
	// A CLI config named in the environment replaces the home directory's.
	env["TF_CLI_CONFIG_FILE"] = "/dev/null"
	if dir, _ := UserPluginCache(env); dir != "" {
		t.Errorf("with TF_CLI_CONFIG_FILE=/dev/null: %q, want none", dir)
	}
}

func TestOpenPluginCache(t *testing.T) {
	ours := filepath.Join(t.TempDir(), "a", "plugins")
	got, err := OpenPluginCache(ours, map[string]string{"TF_CLI_CONFIG_FILE": "/dev/null"})
	if err != nil || got != ours {
		t.Fatalf("OpenPluginCache = %q, %v; want %q", got, err, ours)
	}
	if st, err := os.Stat(ours); err != nil || !st.IsDir() {
		t.Errorf("not created: %v", err)
	}
	theirs := filepath.Join(t.TempDir(), "theirs")
	got, err = OpenPluginCache(ours, map[string]string{"TF_PLUGIN_CACHE_DIR": theirs})
	if err != nil || got != theirs {
		t.Fatalf("with TF_PLUGIN_CACHE_DIR: %q, %v; want theirs, %q", got, err, theirs)
	}
	if _, err := os.Stat(theirs); err != nil {
		t.Errorf("theirs not created: %v", err)
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenPluginCache(filepath.Join(file, "plugins"), nil); err == nil {
		t.Error("a cache under a file: no error")
	}
}
