package cli

import (
	"fmt"

	"github.com/tfgate/tfgate/internal/ci"
	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/pipeline"
	"github.com/tfgate/tfgate/internal/render"
)

// githubRun reads the GitHub Actions environment and event (a missing or malformed
// payload is an error) for a command that reports there; nil outside Actions unless
// --publish github insists. The API client is made when publish asks for it: "github"
// always, "auto" with a token.
func (a *app) githubRun(cfg *config.Config, publish, outDir string) (*pipeline.GitHubRun, error) {
	env := ci.GitHubFromEnv(a.getenv)
	if !env.Actions && publish != "github" {
		return nil, nil
	}
	ev, err := env.Event()
	if err != nil {
		return nil, err
	}
	g := &pipeline.GitHubRun{Env: env, Event: ev, Identity: cfg.GitHub.Identity, Annotate: render.Commands(a.stderr),
		ArtifactName: a.getenv("TFGATE_ARTIFACT_NAME")}
	if g.ArtifactName == "" && outDir != "" {
		g.ArtifactName = "tfgate-plan-" + ev.HeadSHA
	}
	if g.API, err = githubAPI(env, "--publish", publish, cfg.GitHub.Identity); err != nil {
		return nil, err
	}
	return g, nil
}

// githubAPI is the client a command publishes with, or nil: for mode "github" always (a
// token is required), for "auto" in GitHub Actions with a token, for "none" never. flag
// names the option in the error; login is the config's github.identity ("" = learn it).
func githubAPI(env ci.GitHub, flag, mode, login string) (github.API, error) {
	switch {
	case mode == "none", mode == "auto" && (!env.Actions || env.Token == ""):
		return nil, nil
	case env.Token == "":
		return nil, fmt.Errorf("%s github needs GITHUB_TOKEN: map it in the workflow (env: GITHUB_TOKEN: ${{ github.token }})", flag)
	case env.Repository == "":
		return nil, fmt.Errorf("%s github needs GITHUB_REPOSITORY (owner/name), which GitHub Actions sets", flag)
	}
	timeout, _, err := env.Timeouts()
	if err != nil {
		return nil, err
	}
	api, err := github.New(github.Options{BaseURL: env.APIURL, Token: string(env.Token), Login: login, RequestTimeout: timeout})
	if err != nil {
		return nil, err
	}
	return api, nil
}

// warn prints a warning for the user on stderr.
func (a *app) warn(s string) { fmt.Fprintf(a.stderr, "warning: %s\n", s) }
