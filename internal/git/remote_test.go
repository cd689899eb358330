package git

import "testing"

func TestRepoFromURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://github.com/acme/infra.git":     "acme/infra",
		"https://github.com/acme/infra":         "acme/infra",
		"git@github.com:acme/infra.git":         "acme/infra",
		"ssh://git@github.com/acme/infra.git":   "acme/infra",
		"https://gitlab.com/acme/infra.git":     "",
		"/tmp/repo.origin.git":                  "",
		"https://github.com/acme/infra/sub.git": "",
	} {
		got, ok := RepoFromURL(in, "github.com")
		if got != want || ok != (want != "") {
			t.Errorf("RepoFromURL(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}
