package pipeline

import "github.com/tfgate/tfgate/internal/notify"

// GitHubRun is the GitHub Actions context of a run: where notify publishes it.
type GitHubRun = notify.GitHub
