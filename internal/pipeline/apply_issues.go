package pipeline

import (
	"context"
	"path"

	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/notify"
)

// What an apply run adds to its record besides the audit: the tracking issues of merged
// changes it did not apply (notify.PublishTracking), noted in the run so that the audit
// comment names them.

// track publishes the run's tracking issues and notes them in the run.
func (a *review) track(ctx context.Context) error {
	gh := a.gh
	if a.req.DryRun || gh == nil || gh.API == nil || a.run.Commit == "" || len(a.run.Projects) == 0 {
		return nil
	}
	id, err := a.whoAmI(ctx)
	if err != nil {
		return err
	}
	notes, err := notify.PublishTracking(ctx, notify.Tracking{API: gh.API, Repo: a.repo, Identity: id, Run: a.run,
		Skip: a.untracked(), RunURL: gh.Env.RunURL(), Now: a.req.Now(),
		RecoverAs: func(dir string) string { return path.Join(dir, RecoverFile) }})
	a.run.Notes = append(a.run.Notes, notes...)
	return err
}

// untracked are the run's items that get no tracking issue: a project in observe mode
// (tfgate never applies it) and the review-only items (files outside every project, a
// dropped project: their refusal refuses the merge's projects, which are tracked).
func (a *review) untracked() map[string]bool {
	out := map[string]bool{}
	for _, t := range a.targets {
		if t.review != "" || t.p.Mode == config.ModeObserve {
			out[t.p.Name] = true
		}
	}
	return out
}

// whoAmI is tfgate's identity, asked once per run.
func (a *review) whoAmI(ctx context.Context) (github.Identity, error) {
	if a.identity != "" {
		return github.Identity{Login: a.identity, Source: "this run"}, nil
	}
	gh := a.gh
	id, err := github.IdentityOf(ctx, gh.API, gh.Identity)
	if err == nil {
		a.identity = id.Login
	}
	return id, err
}
