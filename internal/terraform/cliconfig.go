package terraform

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// OpenPluginCache returns the shared provider cache for terraform run with env, creating it
// when missing: the user's own — TF_PLUGIN_CACHE_DIR, or plugin_cache_dir in terraform's
// CLI configuration — when they have one, else dir. Either way the Runner keeps it safe
// (see plugincache.go).
func OpenPluginCache(dir string, env map[string]string) (string, error) {
	if theirs, from := UserPluginCache(env); theirs != "" {
		if err := os.MkdirAll(theirs, 0o755); err != nil {
			return "", fmt.Errorf("plugin cache %s (from %s): %w", theirs, from, err)
		}
		removeStaleTemp(theirs, time.Now())
		return theirs, nil
	}
	abs, err := filepath.Abs(dir)
	if err == nil {
		err = os.MkdirAll(abs, 0o755)
	}
	if err != nil {
		return "", fmt.Errorf("plugin cache %s: %w; set TF_PLUGIN_CACHE_DIR to a writable directory, or terraform.plugin_cache: false in the config", dir, err)
	}
	removeStaleTemp(abs, time.Now())
	return abs, nil
}

// UserPluginCache is the plugin cache directory terraform run with env would use by the
// user's own settings, and where that was set; "" when there is none. A relative
// directory, which terraform would take per project, is no shared cache and not returned.
func UserPluginCache(env map[string]string) (dir, from string) {
	if d := env["TF_PLUGIN_CACHE_DIR"]; d != "" {
		if filepath.IsAbs(d) {
			return d, "TF_PLUGIN_CACHE_DIR"
		}
		return "", ""
	}
	// Terraform takes the first plugin_cache_dir of its CLI configuration files, in this
	// order, expanding environment variables in it.
	for _, f := range cliConfigFiles(env) {
		d, ok := pluginCacheSetting(f)
		if !ok {
			continue
		}
		d = os.Expand(d, func(k string) string { return env[k] })
		if filepath.IsAbs(d) {
			return d, f
		}
		return "", ""
	}
	return "", ""
}

// cliConfigFiles are the CLI configuration files terraform (or tofu) reads: the one
// TF_CLI_CONFIG_FILE names, else the one in the home directory and the *.tfrc files of
// its terraform.d directory.
func cliConfigFiles(env map[string]string) []string {
	for _, k := range []string{"TF_CLI_CONFIG_FILE", "TERRAFORM_CONFIG"} {
		if f := env[k]; f != "" {
			return []string{f}
		}
	}
	home, rc, dir := env["HOME"], []string{".tofurc", ".terraformrc"}, ".terraform.d"
	if runtime.GOOS == "windows" {
		home, rc, dir = env["APPDATA"], []string{"tofu.rc", "terraform.rc"}, "terraform.d"
	}
	if home == "" {
		return nil
	}
	var files []string
	for _, name := range rc {
		files = append(files, filepath.Join(home, name))
	}
	for _, pattern := range []string{"*.tfrc", "*.tfrc.json"} {
		m, _ := filepath.Glob(filepath.Join(home, dir, pattern))
		files = append(files, m...)
	}
	return files
}

// pluginCacheSetting reads plugin_cache_dir from a CLI configuration file. The files are
// HCL 1, which HCL 2 reads when they use nothing HCL 1 alone allows; else the line
// `plugin_cache_dir = "..."` is looked for.
func pluginCacheSetting(file string) (string, bool) {
	src, err := os.ReadFile(file)
	if err != nil {
		return "", false
	}
	if strings.HasSuffix(file, ".json") {
		var doc struct {
			Dir string `json:"plugin_cache_dir"`
		}
		if json.Unmarshal(src, &doc) != nil || doc.Dir == "" {
			return "", false
		}
		return doc.Dir, true
	}
	f, diags := hclsyntax.ParseConfig(src, file, hcl.InitialPos)
	if !diags.HasErrors() {
		a := f.Body.(*hclsyntax.Body).Attributes["plugin_cache_dir"]
		if a == nil {
			return "", false
		}
		// "${HOME}/x" is a template to HCL 2, text to HCL 1 (terraform expands it later).
		if v, diags := a.Expr.Value(nil); !diags.HasErrors() && v.Type() == cty.String && !v.IsNull() {
			return v.AsString(), v.AsString() != ""
		}
	}
	sc := bufio.NewScanner(bytes.NewReader(src))
	for sc.Scan() {
		key, value, ok := strings.Cut(sc.Text(), "=")
		if !ok || strings.TrimSpace(key) != "plugin_cache_dir" {
			continue
		}
		if s, err := strconv.Unquote(strings.TrimSpace(value)); err == nil && s != "" {
			return s, true
		}
	}
	return "", false
}
