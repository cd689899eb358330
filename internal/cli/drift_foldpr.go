package cli

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/tfgate/tfgate/internal/ci"
	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/pipeline"
	"github.com/tfgate/tfgate/internal/report"
	"github.com/tfgate/tfgate/internal/stage"
)

func addFoldBackFlag(cmd *cobra.Command, v *bool) {
	cmd.Flags().BoolVar(v, "fold-back-pr", false, "open (or update) one pull request per drifted project whose drift can be folded back whole, "+
		"on branch tfgate/fold-back/<project>; needs --report github (or auto with a token), contents: write and pull-requests: write")
}

// foldBack is `tfgate drift --fold-back-pr` around the drift run: the suggestions kept while
// it runs, the pull requests opened before the issues are published, linked after. A nil
// *foldBack does nothing.
type foldBack struct {
	req       pipeline.FoldBackRequest
	collector *pipeline.FoldBackCollector
	state     *pipeline.FoldBackState
	err       error
}

// newFoldBack is nil without --fold-back-pr. apiErr is the error making the GitHub client,
// returned first.
func newFoldBack(on bool, api github.API, apiErr error, env ci.GitHub, e stage.Env) (*foldBack, error) {
	if apiErr != nil || !on {
		return nil, apiErr
	}
	if api == nil {
		return nil, errors.New("--fold-back-pr needs GitHub: run it in GitHub Actions with a token, or with --report github")
	}
	repo, err := github.ParseRepo(env.Repository)
	if err != nil {
		return nil, err
	}
	base := ""
	if env.EventPath != "" {
		if ev, err := env.Event(); err == nil {
			base = ev.DefaultBranch
		}
	}
	return &foldBack{collector: &pipeline.FoldBackCollector{},
		req: pipeline.FoldBackRequest{API: api, Repo: repo, Identity: e.Config.GitHub.Identity, Base: base, Root: e.Root,
			Masker: e.Masker, Version: version()}}, nil
}

func (f *foldBack) wrap(s pipeline.SuggestFunc) pipeline.SuggestFunc {
	if f == nil {
		return s
	}
	return f.collector.Wrap(s)
}

func (f *foldBack) open(ctx context.Context, run report.Run) report.Run {
	if f == nil {
		return run
	}
	run, f.state, f.err = pipeline.FoldBackPRs(ctx, f.req, run, f.collector)
	return run
}

// link links the pull requests to the issues and returns the run's publishing error with
// the fold-back's joined.
func (f *foldBack) link(ctx context.Context, run report.Run, perr error) error {
	if f == nil {
		return perr
	}
	err := errors.Join(f.err, pipeline.LinkFoldBackPRs(ctx, f.state, run))
	if err == nil {
		return perr
	}
	err = errors.New("fold-back pull requests: " + err.Error())
	if perr == nil {
		return err
	}
	return errors.Join(perr, err)
}
