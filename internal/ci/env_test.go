package ci

import "testing"

func TestFromEnv(t *testing.T) {
	tests := []struct {
		env             map[string]string
		wantCI, wantGHA bool
	}{
		{map[string]string{}, false, false},
		{map[string]string{"CI": "true"}, true, false},
		{map[string]string{"CI": "1"}, true, false},
		{map[string]string{"CI": "false"}, false, false},
		{map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_REPOSITORY": "o/r"}, true, true},
	}
	for _, tt := range tests {
		e := FromEnv(func(k string) string { return tt.env[k] })
		if e.CI != tt.wantCI || e.GitHubActions != tt.wantGHA {
			t.Errorf("FromEnv(%v) = %+v", tt.env, e)
		}
		if tt.wantGHA && e.Repository != "o/r" {
			t.Errorf("repository not read: %+v", e)
		}
	}
}
