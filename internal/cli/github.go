package cli

import (
	"context"
	"fmt"

	"github.com/tfgate/tfgate/internal/ci"
	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/pipeline"
)

// githubRun is what a command knows about the GitHub run it is part of: the Actions
// environment, the event, and a client when it publishes.
type githubRun struct {
	env   ci.GitHub
	event ci.Event
	api   github.API // nil: nothing is published
}

func (g githubRun) isPullRequest() bool {
	switch g.event.Name {
	case "pull_request", "pull_request_target", "pull_request_review":
		return true
	}
	return false
}

// githubRun reads the GitHub Actions environment and event (a missing or malformed
// payload is an error), applies the fork rule, and makes a client when publish asks for
// one: "github" always, "auto" in GitHub Actions with a token.
func (a *app) githubRun(ctx context.Context, root, publish string) (githubRun, error) {
	g := githubRun{env: ci.GitHubFromEnv(a.getenv)}
	if g.env.Actions || publish == "github" {
		ev, err := g.env.Event()
		if err != nil {
			return g, err
		}
		g.event = ev
		if ev.Name == "pull_request_target" && ev.Fork {
			// The rule comes from the base commit: a fork must not be able to allow itself.
			base := config.Default()
			if ev.BaseSHA != "" {
				_, cfg, _, err := pipeline.BaseConfig(ctx, root, a.configFile(), ev.BaseSHA)
				if err != nil {
					return g, fmt.Errorf("read the base commit's configuration for the fork rule: %w", err)
				}
				base = cfg
			}
			if err := pipeline.PlanGuard(ev, base); err != nil {
				return g, err
			}
		}
	}
	switch {
	case publish == "none", publish == "auto" && (!g.env.Actions || g.env.Token == ""):
		return g, nil
	case g.env.Token == "":
		return g, fmt.Errorf("--publish github needs GITHUB_TOKEN: map it in the workflow (env: GITHUB_TOKEN: ${{ github.token }})")
	}
	api, err := github.New(github.Options{BaseURL: g.env.APIURL, Token: string(g.env.Token)})
	if err != nil {
		return g, err
	}
	g.api = api
	return g, nil
}

// warn prints a warning for the user on stderr.
func (a *app) warn(s string) { fmt.Fprintf(a.stderr, "warning: %s\n", s) }
