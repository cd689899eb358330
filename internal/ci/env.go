// Package ci knows the CI system tfgate runs in: in GitHub Actions, the run's environment
// (read through the getenv the command layer passes), its event payload, merge queue branch
// names, and the files a step writes (outputs, the job summary). The git checkout is package
// git's.
package ci

// Env is what tfgate needs to know about the CI system it runs in. It is read once, by the
// command layer, from the process environment; domain packages receive values, not env.
type Env struct {
	CI            bool   // any CI system (CI=true), or GitHub Actions
	GitHubActions bool   // GITHUB_ACTIONS=true
	Repository    string // GITHUB_REPOSITORY, "owner/name"
	EventName     string // GITHUB_EVENT_NAME
	EventPath     string // GITHUB_EVENT_PATH
	SHA           string // GITHUB_SHA
	APIURL        string // GITHUB_API_URL
	GitHub        GitHub // the whole GitHub Actions environment (github.go)
}

// FromEnv reads the CI environment through getenv.
func FromEnv(getenv func(string) string) Env {
	gha := getenv("GITHUB_ACTIONS") == "true"
	ci := gha || isTrue(getenv("CI"))
	return Env{
		CI:            ci,
		GitHubActions: gha,
		Repository:    getenv("GITHUB_REPOSITORY"),
		EventName:     getenv("GITHUB_EVENT_NAME"),
		EventPath:     getenv("GITHUB_EVENT_PATH"),
		SHA:           getenv("GITHUB_SHA"),
		APIURL:        getenv("GITHUB_API_URL"),
		GitHub:        GitHubFromEnv(getenv),
	}
}

func isTrue(s string) bool {
	switch s {
	case "1", "true", "TRUE", "True", "yes", "on":
		return true
	}
	return false
}
