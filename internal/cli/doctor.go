package cli

import (
	"context"
	"net/url"
	"os/exec"
	"time"

	"github.com/spf13/cobra"

	"github.com/tfgate/tfgate/internal/ci"
	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/doctor"
	"github.com/tfgate/tfgate/internal/git"
	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/project"
	"github.com/tfgate/tfgate/internal/stage"
)

type doctorOptions struct {
	Format  string
	Repo    string
	Branch  string
	Timeout time.Duration
	Offline bool
}

func newDoctorCmd(a *app) *cobra.Command {
	var opts doctorOptions
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check the repository's tfgate setup, incl. that tfgate/gate is a required check",
		Long: `doctor checks the setup and prints each finding with its fix: the configuration, the
projects, terraform, the policies and their tests, the workflows (present, their permissions,
actionlint where installed) and, on GitHub, that tfgate/gate is a required status check of
the default branch, the TFGATE_PLAN_KEY secret and the merge queue. From a laptop it needs a
token (GITHUB_TOKEN or GH_TOKEN, e.g. GH_TOKEN=$(gh auth token)); GITHUB_API_URL is honoured.
Without a token outside GitHub Actions, or with --offline, it makes the local checks only.
It exits 0 only when every essential check (✗ otherwise) holds, else 1.`,
		Example: `  tfgate doctor
  tfgate doctor --repo octo/infra --format json
  # The local checks only, without GitHub
  tfgate doctor --offline`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDoctor(cmd, a, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Format, "format", "text", "output format: text or json")
	cmd.Flags().StringVar(&opts.Repo, "repo", "", "the GitHub repository, owner/name (default: GITHUB_REPOSITORY, else the origin remote)")
	cmd.Flags().StringVar(&opts.Branch, "branch", "", "the default branch (default: origin/HEAD's, else main or master)")
	cmd.Flags().DurationVar(&opts.Timeout, "timeout", 30*time.Second, "longest wait for one GitHub check")
	cmd.Flags().BoolVar(&opts.Offline, "offline", false, "make the local checks only, none on GitHub")
	completeValues(cmd, "format", dataFormats)
	return cmd
}

func runDoctor(cmd *cobra.Command, a *app, opts doctorOptions) error {
	if err := oneOf("--format", opts.Format, dataFormats...); err != nil {
		return err
	}
	ctx := cmd.Context()
	root, err := a.root(ctx)
	if err != nil {
		return err
	}
	o := doctor.Options{
		Root:   root,
		Config: func(ctx context.Context) (*config.Config, error) { return a.loadConfig(ctx, root) },
		Projects: func(ctx context.Context, cfg *config.Config) ([]project.Project, error) {
			sel, err := stage.Select(ctx, stage.SelectOptions{Root: root, Config: cfg, ConfigFile: a.configFile(), All: true})
			return sel.Projects, err
		},
		Terraform: func(ctx context.Context, cfg *config.Config) (string, error) {
			bin, err := stage.ResolveTerraform(ctx, cfg, a.terraformOptions(false))
			if err != nil {
				return "", err
			}
			return bin.String(), nil
		},
		Call: func(ctx context.Context) (context.Context, context.CancelFunc) {
			return context.WithTimeout(ctx, opts.Timeout)
		},
	}
	if path, err := exec.LookPath("actionlint"); err == nil {
		o.Actionlint = path
	}
	o.Branch, o.BranchErr = defaultBranch(ctx, root, opts.Branch)
	env := ci.GitHubFromEnv(a.getenv)
	o.PlanKeyInRun = env.Actions && a.getenv("TFGATE_PLAN_KEY") != ""
	o.Offline = a.doctorOffline(env, opts.Offline)
	if o.Offline == "" {
		o.GitHub, o.Repo, o.NoGitHub = a.doctorGitHub(ctx, root, env, opts.Repo)
	}

	rep := doctor.Run(ctx, o)
	if opts.Format == "json" {
		err = rep.WriteJSON(a.stdout)
	} else {
		err = rep.WriteText(a.stdout)
	}
	if err != nil {
		return err
	}
	if !rep.OK() {
		return withCode(ExitError, nil) // the report said it all
	}
	return nil
}

// doctorOffline says why doctor makes the local checks only: --offline, or no token on a
// laptop; "" when it checks GitHub too. In GitHub Actions a missing token is a finding
// (could not check), never a reason to skip: CI fails closed.
func (a *app) doctorOffline(env ci.GitHub, flag bool) string {
	switch {
	case flag:
		return "--offline"
	case !env.Actions && env.Token == "" && a.getenv("GH_TOKEN") == "":
		return "no token: set GITHUB_TOKEN or GH_TOKEN"
	}
	return ""
}

// doctorGitHub is the client doctor reads GitHub with, or nil and why not: the token is
// GITHUB_TOKEN, else GH_TOKEN (the gh CLI's); the repository --repo, else
// GITHUB_REPOSITORY, else the origin remote's on GITHUB_SERVER_URL's host.
func (a *app) doctorGitHub(ctx context.Context, root string, env ci.GitHub, flag string) (doctor.GitHub, github.Repo, string) {
	token := string(env.Token)
	if token == "" {
		token = a.getenv("GH_TOKEN")
	}
	full := flag
	if full == "" {
		full = env.Repository
	}
	if full == "" {
		host := "github.com"
		if u, err := url.Parse(env.ServerURL); err == nil && u.Host != "" {
			host = u.Hostname()
		}
		if remote, err := (git.Git{Dir: root}).RemoteURL(ctx, "origin"); err == nil {
			full, _ = git.RepoFromURL(remote, host)
		}
	}
	if full == "" {
		return nil, github.Repo{}, "which GitHub repository is unknown: pass --repo owner/name (or set GITHUB_REPOSITORY)"
	}
	repo, err := github.ParseRepo(full)
	if err != nil {
		return nil, github.Repo{}, err.Error()
	}
	if token == "" {
		return nil, repo, "no token: set GITHUB_TOKEN or GH_TOKEN (e.g. GH_TOKEN=$(gh auth token))"
	}
	// Doctor reports; a GitHub in trouble is "could not check", soon.
	c, err := github.New(github.Options{BaseURL: env.APIURL, Token: token, MaxAttempts: 2, Backoff: 500 * time.Millisecond,
		MaxWait: 5 * time.Second, MaxRetryTime: 10 * time.Second})
	if err != nil {
		return nil, repo, err.Error()
	}
	return c, repo, ""
}
