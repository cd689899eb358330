package config

import "testing"

func TestIgnores(t *testing.T) {
	parse := func(t *testing.T, src string) *Config {
		t.Helper()
		cfg, err := Parse([]byte(src), FileName, "")
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	def := Default()
	custom := parse(t, "version: 1\nignore: [\"scripts/*.txt\", \"./notes/**\"]\n")
	none := parse(t, "version: 1\nignore: []\n")
	for _, tc := range []struct {
		cfg  *Config
		file string
		want bool
	}{
		{def, "README.md", true},
		{def, "envs/prod/README.md", true},
		{def, "LICENSE", true},
		{def, "docs/guide/x.png", true},
		{def, ".gitignore", true},
		{def, "scripts/hook.sh", false},
		{def, "shared/common.tfvars", false},
		{def, ".tfgate.yaml", false},
		{def, "policies/deny.rego", false},
		{custom, "scripts/a.txt", true},
		{custom, "notes/x/y", true},
		{custom, "README.md", false}, // a list replaces the defaults
		{none, "README.md", false},
	} {
		if got := tc.cfg.Ignores(tc.file); got != tc.want {
			t.Errorf("ignore %v: Ignores(%q) = %v, want %v", tc.cfg.Ignore, tc.file, got, tc.want)
		}
	}
	for _, bad := range []string{"version: 1\nignore: [\"/abs\"]\n", "version: 1\nignore: [\"../up\"]\n", "version: 1\nignore: \"*.md\"\n", "version: 1\nignore: [\"a[\"]\n"} {
		if _, err := Parse([]byte(bad), FileName, ""); err == nil {
			t.Errorf("%q: no error", bad)
		} else {
			t.Logf("%q: %v", bad, err)
		}
	}
}
