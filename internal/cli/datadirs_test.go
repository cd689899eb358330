package cli

import "testing"

// TestKeptDataDirs: a plan keeps data directories (and may skip init) in the user cache
// directory, never in CI.
func TestKeptDataDirs(t *testing.T) {
	tests := []struct {
		name    string
		environ []string
		want    string
	}{
		{"laptop", []string{"HOME=/home/u", "XDG_CACHE_HOME=/xdg"}, "/xdg/tfgate/tfdata"},
		{"home", []string{"HOME=/home/u"}, "/home/u/.cache/tfgate/tfdata"},
		{"CI", []string{"HOME=/home/u", "CI=true"}, ""},
		{"GitHub Actions", []string{"HOME=/home/runner", "GITHUB_ACTIONS=true"}, ""},
		{"no cache directory", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := newApp(nil, nil, nil, nil, tt.environ, nil).keptDataDirs(); got != tt.want {
				t.Errorf("keptDataDirs = %q, want %q", got, tt.want)
			}
		})
	}
}
