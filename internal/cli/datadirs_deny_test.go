package cli

import "testing"

// TestDataDirsCacheEverywhere: every command denies terraform the kept data directories,
// in CI too and with --fresh (stage.TerraformOptions.KeptDataDirs), though only a plan
// outside CI keeps one.
func TestDataDirsCacheEverywhere(t *testing.T) {
	for name, environ := range map[string][]string{
		"laptop":         {"HOME=/home/u", "XDG_CACHE_HOME=/xdg"},
		"CI":             {"HOME=/home/u", "XDG_CACHE_HOME=/xdg", "CI=true"},
		"GitHub Actions": {"HOME=/home/u", "XDG_CACHE_HOME=/xdg", "GITHUB_ACTIONS=true"},
	} {
		if got := newApp(nil, nil, nil, nil, environ, nil).terraformOptions(false).KeptDataDirs; got != "/xdg/tfgate/tfdata" {
			t.Errorf("%s: KeptDataDirs = %q, want /xdg/tfgate/tfdata", name, got)
		}
	}
	if got := newApp(nil, nil, nil, nil, nil, nil).terraformOptions(false).KeptDataDirs; got != "" {
		t.Errorf("no cache directory: KeptDataDirs = %q, want none", got)
	}
}
